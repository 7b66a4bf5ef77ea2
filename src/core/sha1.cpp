#include "core/sha1.h"

#include <openssl/evp.h>

#include <fmt/format.h>

#include "caliber/errors.h"

namespace caliber {

std::string sha1_hex(std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(data.data(), data.size(), digest, &length, EVP_sha1(), nullptr) != 1) {
    throw Error("SHA-1 failed in OpenSSL's EVP_Digest");
  }
  std::string out;
  out.reserve(2 * length);
  for (unsigned int i = 0; i < length; ++i) out += fmt::format("{:02x}", digest[i]);
  return out;
}

}  // namespace caliber
