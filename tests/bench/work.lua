-- CPU-bound Lua workload for tests/bench/overhead_vs_perf.sh: recursion,
-- table churn and string building, a fixed amount of work (argument: the
-- number of rounds, default 30).  Prints a checksum so the work is kept.
local rounds = tonumber(arg and arg[1]) or 30

local function fib(n)
	if n < 2 then return n end
	return fib(n - 1) + fib(n - 2)
end

local function sieve(n)
	local is = {}
	for i = 2, n do is[i] = true end
	for i = 2, math.floor(math.sqrt(n)) do
		if is[i] then
			for j = i * i, n, i do is[j] = false end
		end
	end
	local c = 0
	for i = 2, n do if is[i] then c = c + 1 end end
	return c
end

local function words(n)
	local t = {}
	for i = 1, n do t[#t + 1] = string.format("w%05d", (i * 7919) % 100003) end
	table.sort(t)
	return #table.concat(t, ",")
end

local sum = 0
for r = 1, rounds do
	sum = sum + fib(22) + sieve(200000) + words(20000) + r
end
print("checksum " .. sum)
