// Plugin entries a process registers itself instead of exporting them from a library: a Python
// provider (entrypoint python:FILE.py:NAME, docs/python.md "Python providers") is an object of a
// Python file whose worker, a Python process, registers one entry function per provider through
// the C API (caliber_register_provider_entry, include/caliber/c_api.h) before it runs caliber's
// worker. The entry speaks plugin ABI v2 (include/caliber/plugin_abi.h), for every op.
#pragma once

#include <string>

namespace caliber::providers {

// Registers `entry` (a caliber_plugin_entry_v2: it is called with the ABI version it must fill) as the provider `name` of the Python file `file`. A later registration of the same file
// and name replaces the earlier one.
void register_provider_entry(const std::string& file, const std::string& name, void* entry);

// The entry registered for `file` (compared as a canonical path) and `name`; nullptr when none.
void* registered_provider_entry(const std::string& file, const std::string& name);

// Whether a plugin path names a Python file (a python: entrypoint's), whose entries are registered,
// not dlopened.
bool is_python_provider_file(const std::string& path);

}  // namespace caliber::providers
