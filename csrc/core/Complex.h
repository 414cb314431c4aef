#pragma once
// Complex<T>: the element type of complex64 (Complex<float>) and complex128 (Complex<double>), usable in host
// and device code (std::complex is not). Laid out as PyTorch's and NumPy's complex: the real part, then the
// imaginary part, aligned to its whole size.
#include "core/Macros.h"

namespace torchlite {

template <typename T>
struct alignas(2 * sizeof(T)) Complex {
  using value_type = T;
  T re{}, im{};

  constexpr Complex() = default;
  TL_HOST_DEVICE constexpr Complex(T r, T i = T(0)) : re(r), im(i) {}
  template <typename U>
  TL_HOST_DEVICE explicit constexpr Complex(const Complex<U>& o) : re(static_cast<T>(o.re)), im(static_cast<T>(o.im)) {}

  TL_HOST_DEVICE constexpr T real() const { return re; }
  TL_HOST_DEVICE constexpr T imag() const { return im; }
  // True unless 0 (a condition, `!z`, a cast to bool: PyTorch's truth of a complex number).
  TL_HOST_DEVICE constexpr explicit operator bool() const { return re != T(0) || im != T(0); }

  TL_HOST_DEVICE Complex& operator+=(const Complex& o) { re += o.re; im += o.im; return *this; }
  TL_HOST_DEVICE Complex& operator-=(const Complex& o) { re -= o.re; im -= o.im; return *this; }
  TL_HOST_DEVICE Complex& operator*=(const Complex& o) { return *this = *this * o; }
  TL_HOST_DEVICE Complex& operator/=(const Complex& o) { return *this = *this / o; }

  TL_HOST_DEVICE friend constexpr Complex operator+(const Complex& a, const Complex& b) {
    return {a.re + b.re, a.im + b.im};
  }
  TL_HOST_DEVICE friend constexpr Complex operator-(const Complex& a, const Complex& b) {
    return {a.re - b.re, a.im - b.im};
  }
  TL_HOST_DEVICE friend constexpr Complex operator-(const Complex& a) { return {-a.re, -a.im}; }
  TL_HOST_DEVICE friend constexpr Complex operator*(const Complex& a, const Complex& b) {
    return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
  }
  // Smith's algorithm: no overflow or underflow of |b|^2 in between. By zero: each part over +0 (NumPy's and
  // PyTorch's inf+nanj for (1+0j)/0).
  TL_HOST_DEVICE friend Complex operator/(const Complex& a, const Complex& b) {
    const auto fabs = [](T x) { return x < T(0) ? -x : x; };
    if (fabs(b.re) >= fabs(b.im)) {
      if (b.re == T(0) && b.im == T(0)) return {a.re / fabs(b.re), a.im / fabs(b.im)};
      const T r = b.im / b.re, d = b.re + b.im * r;
      return {(a.re + a.im * r) / d, (a.im - a.re * r) / d};
    }
    const T r = b.re / b.im, d = b.re * r + b.im;
    return {(a.re * r + a.im) / d, (a.im * r - a.re) / d};
  }
  TL_HOST_DEVICE friend constexpr bool operator==(const Complex& a, const Complex& b) {
    return a.re == b.re && a.im == b.im;
  }
  TL_HOST_DEVICE friend constexpr bool operator!=(const Complex& a, const Complex& b) { return !(a == b); }
};

template <typename T> struct is_complex_t { static constexpr bool value = false; };
template <typename T> struct is_complex_t<Complex<T>> { static constexpr bool value = true; };
template <typename T> inline constexpr bool is_complex_v = is_complex_t<T>::value;

// The real type of a complex type (T itself for a real one).
template <typename T> struct real_type { using type = T; };
template <typename T> struct real_type<Complex<T>> { using type = T; };
template <typename T> using real_t = typename real_type<T>::type;

}  // namespace torchlite
