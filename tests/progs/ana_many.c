/* 512 small functions with debug info: the code the analyzer benchmarks'
 * synthetic calling-context trees point at (ana_mkprofile -S), so that
 * symbolization costs what it costs on a real program. */
#include <stdlib.h>

#define F(n) __attribute__((noinline)) int f##n(int x) { return x > 1000 ? x : x * 3 + n % 7 + (x & 1 ? 1 : 2); }
#define F8(n) F(n##0) F(n##1) F(n##2) F(n##3) F(n##4) F(n##5) F(n##6) F(n##7)
#define F64(n) F8(n##0) F8(n##1) F8(n##2) F8(n##3) F8(n##4) F8(n##5) F8(n##6) F8(n##7)
F64(1) F64(2) F64(3) F64(4) F64(5) F64(6) F64(7) F64(8)

int main(int argc, char **argv)
{
	int x = argc > 1 ? atoi(argv[1]) : 1;
	return (f100(x) + f877(x)) & 1;
}
