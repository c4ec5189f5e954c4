package rng

import "math"

// Randomness in this package is drawn from streams keyed by (seed, purpose,
// epoch, node) rather than from one shared generator, so that results do not
// depend on how rows are distributed over goroutines.

const (
	StreamInit uint64 = iota + 1
	StreamNegatives
	StreamSigns
)

// mix64 is the splitmix64 finaliser: a bijective hash with good avalanche.
func mix64(z uint64) uint64 {
	z ^= z >> 30
	z *= 0xbf58476d1ce4e5b9
	z ^= z >> 27
	z *= 0x94d049bb133111eb
	return z ^ z>>31
}

// StreamSeed derives the seed of one random stream.
func StreamSeed(seed, purpose, a, b uint64) uint64 {
	return mix64(seed ^ mix64(purpose*0x9e3779b97f4a7c15^mix64(a+0x632be59bd9b4e019)^b))
}

// SplitMix is a small, fast generator: one add and a hash per draw.
type SplitMix struct{ S uint64 }

// Next returns the next 64 random bits.
func (r *SplitMix) Next() uint64 {
	r.S += 0x9e3779b97f4a7c15
	return mix64(r.S)
}

// Intn returns a uniform-enough value in [0, n) by Lemire's multiply-shift;
// the bias is below 2^-32 for the n used here.
func (r *SplitMix) Intn(n uint32) uint32 {
	return uint32((uint64(uint32(r.Next()>>32)) * uint64(n)) >> 32)
}

// Float64 returns a uniform value in [0, 1).
func (r *SplitMix) Float64() float64 {
	return float64(r.Next()>>11) / (1 << 53)
}

// Norm returns a standard normal value (Box–Muller, one of the pair).
func (r *SplitMix) Norm() float64 {
	u := r.Float64()
	for u == 0 {
		u = r.Float64()
	}
	v := r.Float64()
	return math.Sqrt(-2*math.Log(u)) * math.Cos(2*math.Pi*v)
}
