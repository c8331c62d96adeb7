// A C++ shared library for names_cxx.cc, stripped by the test: its
// functions can only be named from .dynsym, demangled.
extern volatile unsigned long sink;

namespace lib {
namespace detail {
template <typename T> struct Hasher {
	__attribute__((noinline)) static T mix(T x, unsigned long i) { return x * (T)6364136223846793005UL + (T)i; }
};
template struct Hasher<unsigned long>;
}

__attribute__((noinline)) void work(unsigned long n)
{
	unsigned long x = sink;
	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005UL + i;
	sink = x;
}
}
