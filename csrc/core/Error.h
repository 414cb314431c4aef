#pragma once
// torchlite errors. Each kind maps to one Python exception type in the bindings.
#include <cstdint>
#include <exception>
#include <string>
#include <string_view>
#include <type_traits>

namespace torchlite {

// LinAlg: torchlite.linalg.LinAlgError, a RuntimeError subclass (a singular or non-positive-definite matrix).
enum class ErrorKind : uint8_t { Runtime, Type, Value, Index, NotImplemented, LinAlg };

class Error : public std::exception {
 public:
  Error(ErrorKind kind, std::string msg) : kind_(kind), msg_(std::move(msg)) {}
  const char* what() const noexcept override { return msg_.c_str(); }
  ErrorKind kind() const noexcept { return kind_; }

 private:
  ErrorKind kind_;
  std::string msg_;
};

// An error raised inside a kernel loop (integer division by zero); the generated
// kernel catches it and rethrows it as an Error that names the op.
class KernelError : public Error {
 public:
  using Error::Error;
};

namespace detail {
inline void str_append(std::string& s, std::string_view v) { s.append(v); }
inline void str_append(std::string& s, const char* v) { s.append(v); }
inline void str_append(std::string& s, const std::string& v) { s.append(v); }
inline void str_append(std::string& s, char v) { s.push_back(v); }
inline void str_append(std::string& s, bool v) { s.append(v ? "True" : "False"); }
template <typename T, std::enable_if_t<std::is_integral_v<T>, int> = 0>
inline void str_append(std::string& s, T v) { s.append(std::to_string(v)); }
void str_append(std::string& s, double v);
inline void str_append(std::string& s, float v) { str_append(s, static_cast<double>(v)); }
// Types with a free `to_string(const T&)` found by ADL (ScalarType, Device, IntArrayRef...).
template <typename T, std::enable_if_t<!std::is_arithmetic_v<T>, int> = 0,
          typename = decltype(to_string(std::declval<const T&>()))>
inline void str_append(std::string& s, const T& v) { s.append(to_string(v)); }
}  // namespace detail

// Concatenates its arguments into one message: str("got ", 3, " dims").
template <typename... Args>
std::string str(const Args&... args) {
  std::string s;
  (detail::str_append(s, args), ...);
  return s;
}

[[noreturn]] void throw_error(ErrorKind kind, std::string msg);

}  // namespace torchlite

#define TL_CHECK_KIND(kind, cond, ...)                                          \
  do {                                                                          \
    if (__builtin_expect(!(cond), 0)) {                                         \
      ::torchlite::throw_error(kind, ::torchlite::str(__VA_ARGS__));            \
    }                                                                           \
  } while (0)
#define TL_CHECK(cond, ...) TL_CHECK_KIND(::torchlite::ErrorKind::Runtime, cond, __VA_ARGS__)
#define TL_CHECK_TYPE(cond, ...) TL_CHECK_KIND(::torchlite::ErrorKind::Type, cond, __VA_ARGS__)
#define TL_CHECK_VALUE(cond, ...) TL_CHECK_KIND(::torchlite::ErrorKind::Value, cond, __VA_ARGS__)
#define TL_CHECK_INDEX(cond, ...) TL_CHECK_KIND(::torchlite::ErrorKind::Index, cond, __VA_ARGS__)
#define TL_ERROR(...) ::torchlite::throw_error(::torchlite::ErrorKind::Runtime, ::torchlite::str(__VA_ARGS__))
