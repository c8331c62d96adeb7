// C++ names as perf shows them: namespaces, a template with two
// instantiations, virtual overrides, operator(), a lambda, an anonymous
// namespace, and a function of a stripped shared library (names_lib.cc).
// Each does its own share of a spin loop; tests/integration/names_cxx.sh
// profiles it and compares the rows' names with perf's.
#include <cstdio>
#include <cstdlib>

volatile unsigned long sink;

#define SPIN(n)                                                                \
	do {                                                                   \
		unsigned long x_ = sink;                                       \
		for (unsigned long i_ = 0; i_ < (n); i_++)                     \
			x_ = x_ * 6364136223846793005UL + i_;                   \
		sink = x_;                                                     \
	} while (0)

namespace lib {
void work(unsigned long n);	// names_lib.cc
}

namespace ns {
template <typename T, int N> struct Accum {
	__attribute__((noinline)) void run(unsigned long n)
	{
		T acc = 0;
		for (unsigned long i = 0; i < n; i++)
			acc = acc * (T)3 + (T)(i & N);
		sink = sink + (unsigned long)acc;
	}
};

struct Shape {
	virtual ~Shape() {}
	virtual void area(unsigned long n) const = 0;
};
struct Square : Shape {
	__attribute__((noinline)) void area(unsigned long n) const override { SPIN(n); }
};
struct Circle : Shape {
	__attribute__((noinline)) void area(unsigned long n) const override { SPIN(n); }
};

/* inlined only: named from DWARF (its linkage name, through the
 * inlined instance's abstract origin and the in-class declaration) */
struct Vec {
	unsigned long x;
	__attribute__((always_inline)) inline unsigned long dot(unsigned long n) const
	{
		unsigned long s = x;
		for (unsigned long i = 0; i < n; i++)
			s = s * 6364136223846793005UL + i;
		return s;
	}
};
__attribute__((noinline)) void use_vec(unsigned long n)
{
	Vec v{ 3 };
	sink = v.dot(n);
}

struct Widget {
	unsigned long k;
	__attribute__((noinline)) void operator()(unsigned long n) const { SPIN(n * k); }
};
} // namespace ns

namespace {
__attribute__((noinline)) void map_work(unsigned long n) { SPIN(n); }
} // namespace

int main(int argc, char **argv)
{
	unsigned long n = (argc > 1 ? strtoul(argv[1], NULL, 10) : 10) * 1000000UL;
	ns::Square sq;
	ns::Circle ci;
	/* through a volatile index: the calls stay virtual */
	const ns::Shape *shapes[2] = { &sq, &ci };
	volatile int which = 0;
	ns::Accum<double, 300> ad;
	ns::Accum<long, 300> al;
	ns::Widget w{ 1 };
	auto lambda = [](unsigned long m) __attribute__((noinline)) { SPIN(m); };

	ad.run(n * 2);
	al.run(n * 3);
	shapes[which]->area(n * 4);
	which = 1;
	shapes[which]->area(n * 5);
	w(n * 6);
	map_work(n * 7);
	lambda(n * 8);
	lib::work(n * 9);
	ns::use_vec(n * 5);
	printf("%lu\n", sink & 1);
	return 0;
}
