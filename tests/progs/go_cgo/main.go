// go_cgo: 64 goroutines burn CPU in Go and in C (cgo), for
// tests/integration/record_hostile.sh.  Go requires foreign signal
// handlers to run with SA_ONSTACK; a profiler that runs its handler on the
// goroutine's stack crashes it ("unexpected return pc", "fatal error:
// fault").  Prints a checksum that must not depend on the profiler.
package main

/*
#include <stdint.h>
static uint64_t c_burn(uint64_t seed, int n)
{
	volatile uint64_t x = seed;
	for (int i = 0; i < n; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}
*/
import "C"

import (
	"fmt"
	"sync"
)

func goBurn(seed uint64, n int) uint64 {
	x := seed
	for i := 0; i < n; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

func main() {
	var wg sync.WaitGroup
	sums := make([]uint64, 64)
	for g := 0; g < 64; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			s := uint64(g + 1)
			for r := 0; r < 60; r++ {
				s = goBurn(s, 20000)
				s = uint64(C.c_burn(C.uint64_t(s), 20000))
				// Grow and shrink the goroutine's stack too.
				s += deep(s, 64)
			}
			sums[g] = s
		}(g)
	}
	wg.Wait()
	var h uint64 = 14695981039346656037
	for _, s := range sums {
		h = (h ^ s) * 1099511628211
	}
	fmt.Printf("go_cgo sum %016x\n", h)
}

func deep(s uint64, n int) uint64 {
	var pad [64]uint64
	pad[n%64] = s
	if n == 0 {
		return pad[0]
	}
	return deep(s+1, n-1) + pad[n%64]
}
