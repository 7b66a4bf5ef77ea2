// SHA-256 through OpenSSL's libcrypto (EVP): content hashes of files that change what a run
// means (provider libraries, ledgers, matrices) and of executed code (code fingerprints).
#pragma once

#include <string>
#include <string_view>

namespace caliber {

// 64 lowercase hex digits of SHA-256(data).
std::string sha256_hex(std::string_view data);

// SHA-256 of a file's bytes, read in chunks. Throws InputError naming the file when it cannot be
// opened or read.
std::string sha256_file_hex(const std::string& path);

}  // namespace caliber
