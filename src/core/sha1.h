// SHA-1 through OpenSSL's libcrypto (EVP), for stable identifiers (not for security).
#pragma once

#include <string>
#include <string_view>

namespace caliber {

// 40 lowercase hex digits of SHA-1(data).
std::string sha1_hex(std::string_view data);

}  // namespace caliber
