// Rust names as perf shows them (crate::module::function), legacy and v0
// mangling: tests/integration/names_rust.sh builds it both ways.
mod r {
    #[inline(never)]
    pub fn hashy(n: u64) -> u64 {
        let mut x = n;
        for i in 0..n {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(i);
        }
        x
    }

    pub struct Table {
        pub seed: u64,
    }

    impl Table {
        #[inline(never)]
        pub fn fill(&self, n: u64) -> u64 {
            let mut x = self.seed;
            for i in 0..n {
                x = x.rotate_left(5) ^ i.wrapping_mul(0x9e3779b97f4a7c15);
            }
            x
        }
    }
}

fn main() {
    let scale: u64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(10);
    let t = r::Table { seed: 7 };
    let a = r::hashy(scale * 20_000_000);
    let b = t.fill(scale * 30_000_000);
    println!("{}", (a ^ b) & 1);
}
