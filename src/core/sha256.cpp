#include "core/sha256.h"

#include <openssl/evp.h>

#include <array>
#include <fstream>
#include <memory>
#include <stdexcept>

#include "caliber/errors.h"

namespace caliber {
namespace {

struct DigestDeleter {
  void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
};
using Digest = std::unique_ptr<EVP_MD_CTX, DigestDeleter>;

Digest start_digest() {
  Digest ctx(EVP_MD_CTX_new());
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1) {
    throw std::runtime_error("OpenSSL: cannot initialise SHA-256");
  }
  return ctx;
}

void update(EVP_MD_CTX* ctx, const void* data, std::size_t size) {
  if (EVP_DigestUpdate(ctx, data, size) != 1) throw std::runtime_error("OpenSSL: SHA-256 update failed");
}

std::string finish_hex(EVP_MD_CTX* ctx) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
  unsigned int len = 0;
  if (EVP_DigestFinal_ex(ctx, md.data(), &len) != 1) throw std::runtime_error("OpenSSL: SHA-256 final failed");
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * len);
  for (unsigned int i = 0; i < len; ++i) {
    out.push_back(kHex[md[i] >> 4]);
    out.push_back(kHex[md[i] & 0xf]);
  }
  return out;
}

}  // namespace

std::string sha256_hex(std::string_view data) {
  Digest ctx = start_digest();
  update(ctx.get(), data.data(), data.size());
  return finish_hex(ctx.get());
}

std::string sha256_file_hex(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "", "cannot open file to hash it");
  Digest ctx = start_digest();
  std::array<char, 1 << 16> buf{};
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    const std::streamsize n = in.gcount();
    if (n > 0) update(ctx.get(), buf.data(), static_cast<std::size_t>(n));
  }
  if (in.bad()) throw InputError(path, 0, "", "read error while hashing");
  return finish_hex(ctx.get());
}

}  // namespace caliber
