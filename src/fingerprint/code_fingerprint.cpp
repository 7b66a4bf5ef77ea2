#include "fingerprint/code_fingerprint.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "caliber/errors.h"
#include "core/json_fields.h"
#include "core/sha256.h"
#include "fingerprint/elf_sections.h"

namespace caliber {

using nlohmann::json;

namespace {

constexpr const char* kKind = "caliber.code_fingerprint";
constexpr int kSchemaVersion = 1;

std::string join_sorted_unique(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  if (v.size() == 1) return v.front();
  std::string joined;
  for (const auto& s : v) joined += s + "\n";
  return sha256_hex(joined);  // several candidates: any change to any of them changes this
}

}  // namespace

std::string CodeFingerprint::digest() const {
  std::vector<std::string> lines;
  for (const CodeObjectHash& c : code) lines.push_back(c.name + "\t" + c.sha256 + "\n");
  for (const std::string& u : unresolved) lines.push_back(u + "\tunresolved\n");
  std::sort(lines.begin(), lines.end());
  std::string all;
  for (const auto& l : lines) all += l;
  return sha256_hex(all);
}

bool cubin_kernel_code_hashes(std::string_view image, std::map<std::string, std::string>* hashes, std::string* error) {
  std::vector<ElfSection> sections;
  if (!read_elf_sections(image, &sections, error)) return false;
  hashes->clear();
  const std::string prefix = ".text.";
  for (const ElfSection& s : sections) {
    if (s.name.rfind(prefix, 0) != 0 || !s.executable()) continue;
    (*hashes)[s.name.substr(prefix.size())] = sha256_hex(s.bytes);
  }
  return true;
}

std::string elf_code_sha256(const std::string& path) {
  const std::string image = read_input_bytes(path, kMaxBinaryInputBytes);  // binary: not UTF-8
  std::vector<ElfSection> sections;
  std::string error;
  if (!read_elf_sections(image, &sections, &error)) throw InputError(path, 0, "", error);
  std::string material;
  for (const ElfSection& s : sections) {
    // Host code, and the device code nvcc embeds as a fatbinary in a non-executable section.
    if (!s.executable() && s.name != ".nv_fatbin") continue;
    material += s.name + '\0' + sha256_hex(s.bytes) + '\n';
  }
  if (material.empty()) throw InputError(path, 0, "", "no executable section");
  return sha256_hex(material);
}

CodeFingerprint host_code_fingerprint(const std::vector<std::pair<std::string, std::string>>& libraries) {
  CodeFingerprint f;
  f.source = "host ELF code sections of each provider library (a Python provider: its file's bytes)";
  for (const auto& [name, path] : libraries) {
    // A Python provider (entrypoint python:FILE.py:NAME) is its source text.
    f.code.push_back({name, path.ends_with(".py") ? sha256_file_hex(path) : elf_code_sha256(path)});
  }
  std::sort(f.code.begin(), f.code.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return f;
}

void CodeFingerprintRecorder::on_module_loaded(std::uint32_t module_id, const void* image, std::size_t size) {
  const std::string_view bytes(static_cast<const char*>(image), size);
  std::map<std::string, std::string> kernels;
  std::string error;
  const bool elf = cubin_kernel_code_hashes(bytes, &kernels, &error);
  const std::lock_guard<std::mutex> lock(mutex_);
  if (!elf) {
    opaque_modules_.push_back(fmt::format("module {}: {}", module_id, sha256_hex(bytes)));
    return;
  }
  for (auto& [name, sha] : kernels) kernel_code_[name].push_back(sha);
}

void CodeFingerprintRecorder::forget_executed() {
  std::lock_guard<std::mutex> lock(mutex_);
  executed_.clear();
}

void CodeFingerprintRecorder::on_kernel_executed(const std::string& mangled_name) {
  const std::lock_guard<std::mutex> lock(mutex_);
  ++executed_[mangled_name];
}

CodeFingerprint CodeFingerprintRecorder::fingerprint() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  CodeFingerprint f;
  f.source = "cuda cubin .text sections of the kernels that ran";
  for (const auto& [name, count] : executed_) {
    const auto it = kernel_code_.find(name);
    if (it != kernel_code_.end()) {
      f.code.push_back({name, join_sorted_unique(it->second)});
    } else if (!opaque_modules_.empty()) {
      // Not in any cubin we could read: charge it to every module we could not split.
      f.code.push_back({name, join_sorted_unique(opaque_modules_)});
    } else {
      f.unresolved.push_back(name);
    }
  }
  return f;
}

CodeFingerprint merge_code_fingerprints(const CodeFingerprint& a, const CodeFingerprint& b) {
  if (a.source.empty()) return b;
  if (b.source.empty()) return a;
  if (a.source != b.source) {
    throw InputError("code fingerprint", 0, "source", fmt::format("cannot merge '{}' with '{}'", a.source, b.source));
  }
  CodeFingerprint m;
  m.source = a.source;
  std::set<std::pair<std::string, std::string>> code;
  for (const auto* f : {&a, &b}) {
    for (const CodeObjectHash& c : f->code) code.insert({c.name, c.sha256});
  }
  std::set<std::string> resolved;
  for (const auto& [name, sha] : code) {
    m.code.push_back({name, sha});
    resolved.insert(name);
  }
  std::set<std::string> unresolved;
  for (const auto* f : {&a, &b}) {
    for (const std::string& n : f->unresolved) {
      if (!resolved.count(n)) unresolved.insert(n);
    }
  }
  m.unresolved.assign(unresolved.begin(), unresolved.end());
  return m;
}

void write_code_fingerprint(const std::string& path, const CodeFingerprint& f) {
  json j = {{"schema_version", kSchemaVersion}, {"kind", kKind}, {"source", f.source}, {"digest", f.digest()}};
  j["code"] = json::array();
  for (const CodeObjectHash& c : f.code) j["code"].push_back({{"name", c.name}, {"sha256", c.sha256}});
  j["unresolved"] = f.unresolved;
  write_file_atomically(path, [&](std::ostream& out) { out << j.dump(2) << '\n'; });
}

CodeFingerprint read_code_fingerprint(const std::string& path) {
  const json doc = parse_json_document(read_text_file(path), path);
  const JsonFields root(doc, path, 0, "");
  if (root.integer("schema_version") != kSchemaVersion) root.fail("schema_version", "unsupported schema version");
  if (root.str("kind") != kKind) root.fail("kind", fmt::format("expected '{}'", kKind));
  CodeFingerprint f;
  f.source = root.str("source");
  const json& code = root.array("code");
  for (std::size_t i = 0; i < code.size(); ++i) {
    const JsonFields c(code[i], path, 0, fmt::format("code[{}]", i));
    f.code.push_back({c.str("name"), c.str("sha256")});
  }
  f.unresolved = root.strings("unresolved");
  if (root.str("digest") != f.digest()) root.fail("digest", "does not match the listed code (edited or truncated file)");
  return f;
}

CodeComparison compare_code(const CodeFingerprint& a, const CodeFingerprint& b, std::string* why) {
  for (const auto& [side, f] : {std::pair{"A", &a}, std::pair{"B", &b}}) {
    if (f->code.empty()) {
      if (why) *why = fmt::format("side {}'s fingerprint lists no code", side);
      return CodeComparison::not_comparable;
    }
    if (!f->unresolved.empty()) {
      if (why) *why = fmt::format("side {}'s fingerprint has {} unresolved kernel(s) ({}...)", side, f->unresolved.size(),
                                  f->unresolved.front());
      return CodeComparison::not_comparable;
    }
  }
  return a.digest() == b.digest() ? CodeComparison::identical : CodeComparison::different;
}

}  // namespace caliber
