// Two numbers written so that a reader can tell them apart: a check that compares a value with a
// bound must not print "0.5 > 0.5" when the value is 0.50004.
#pragma once

#include <string>
#include <utility>

namespace caliber {

// The two numbers in "%g" style with at least `min_digits` significant digits, and more (up to 17)
// until the texts differ when the numbers do. (0.50004, 0.5) -> ("0.50004", "0.5");
// (0.614, 0.5) -> ("0.614", "0.5"); equal numbers -> the same text.
std::pair<std::string, std::string> distinct_texts(double a, double b, int min_digits = 3);

}  // namespace caliber
