// Code fingerprints: a hash of the code each side of an A/B actually executed, so screening can
// tell "the switch changed the generated code" from "it did not" (docs/screen.md).
//
// On cuda the code is the SASS of each kernel that ran: every loaded module's cubin is split into
// its per-kernel code sections (.text.<mangled name>), hashed once at load time, and the kernels
// that ran are looked up by name. The two feeds come from CUPTI (its session, backends/cuda/cupti_session.h):
// MODULE_LOADED resource callbacks (the cubin) and kernel activity records (the names).
// On the host the code is the code sections of each provider library that ran (for a CUDA
// plugin, with the device code it embeds: library-level, not per kernel).
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace caliber {

inline constexpr const char* kCodeFingerprintFileName = "code_fingerprint.json";

struct CodeObjectHash {
  std::string name;    // mangled kernel name, or provider library
  std::string sha256;  // of its code bytes
  friend bool operator==(const CodeObjectHash&, const CodeObjectHash&) = default;
};

struct CodeFingerprint {
  std::string source;                    // how the code was found ("cuda cubin .text sections", "host ELF code")
  std::vector<CodeObjectHash> code;      // what ran, sorted by name; empty: no device code ran
  std::vector<std::string> unresolved;   // ran, but its code was not found (sorted)
  // SHA-256 over the sorted "name\tsha256\n" lines of `code` and "name\tunresolved\n" of
  // `unresolved`: equal digests mean byte-identical code for the same set of kernels.
  std::string digest() const;
  friend bool operator==(const CodeFingerprint&, const CodeFingerprint&) = default;
};

// Per-kernel code hashes of a cubin: kernel name -> SHA-256 of its .text.<name> section.
// Returns false with *error set when the image is not an ELF cubin.
bool cubin_kernel_code_hashes(std::string_view image, std::map<std::string, std::string>* hashes, std::string* error);

// SHA-256 over the code of an ELF file: its executable sections and the CUDA fatbinary
// (.nv_fatbin, the device code nvcc embeds), name and bytes of each, in file order. Not the
// whole file: a rebuild that changes only a name, a path or a build id is the same code.
// Throws InputError naming the file when it cannot be read or is not a 64-bit ELF.
std::string elf_code_sha256(const std::string& path);

// The fingerprint of a host run: one entry per provider library (name, path).
CodeFingerprint host_code_fingerprint(const std::vector<std::pair<std::string, std::string>>& libraries);

// Collects module images and executed kernels while a run measures (thread-safe: CUPTI calls
// back from its own threads), and turns them into the run's fingerprint.
//
// Fed by cuda::CodeFingerprintCapture (src/backends/cuda/code_fingerprint_capture.h): CUPTI's
// module-loaded callback (the image is valid only inside the callback, which is why it is hashed
// at once) and the kernels attributed to each recorded call.
class CodeFingerprintRecorder {
 public:
  void on_module_loaded(std::uint32_t module_id, const void* image, std::size_t size);
  void on_kernel_executed(const std::string& mangled_name);
  // Forgets which kernels ran, keeps the loaded modules: a device server's next run starts from
  // nothing executed (runner/device_server.h).
  void forget_executed();
  CodeFingerprint fingerprint() const;

 private:
  mutable std::mutex mutex_;
  // kernel name -> code hashes (a name found in several modules keeps every distinct hash).
  std::map<std::string, std::vector<std::string>> kernel_code_;
  std::vector<std::string> opaque_modules_;  // whole-image hashes of modules that are not ELF cubins
  std::map<std::string, int> executed_;
};

// The union of two fingerprints of one run (e.g. the worker processes of one `caliber run`, which
// write in turn): every code object of either, a name unresolved in one but found in the other is
// resolved. Throws InputError when the sources differ (host and cuda code do not mix).
CodeFingerprint merge_code_fingerprints(const CodeFingerprint& a, const CodeFingerprint& b);

// Whether two fingerprints say the sides ran the same code (docs/ab.md, "After round 1"). Equal
// digests prove identical code only when both list code and resolved every kernel: a fingerprint
// with no code (nothing ran that could be found) or with unresolved kernels (code that ran but
// was not found) is not comparable, never identical.
enum class CodeComparison { identical, different, not_comparable };
CodeComparison compare_code(const CodeFingerprint& a, const CodeFingerprint& b, std::string* why);

// code_fingerprint.json: written atomically; the reader recomputes the digest and refuses a file
// whose digest does not match (InputError).
void write_code_fingerprint(const std::string& path, const CodeFingerprint& fingerprint);
CodeFingerprint read_code_fingerprint(const std::string& path);

}  // namespace caliber
