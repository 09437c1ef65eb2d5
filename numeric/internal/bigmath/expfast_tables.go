package bigmath

import "math/big"

// The constants of ExpFast, written out: computing them from certified
// enclosures at 200 bits took 13 ms at every start of the process, longer
// than a whole check of a small model. TestExpFastTables recomputes them
// that way and compares.

// ln2over64 is (log 2)/64 · 2^128, rounded to nearest.
var ln2over64 = u128{0x02c5c85fdf473de6, 0xaf278ece600fcbdb}

// pow2j[j] is 2^(j/64) · 2^124, rounded to nearest.
var pow2j = [64]u128{
	{0x1000000000000000, 0x0000000000000000}, // 0
	{0x102c9a3e778060ee, 0x6f7caca4f7a29bdf}, // 1
	{0x1059b0d31585743a, 0xe7c548eb68ca4180}, // 2
	{0x10874518759bc808, 0xc35f25d9427fa2b0}, // 3
	{0x10b5586cf9890f62, 0x98b92b71842a9836}, // 4
	{0x10e3ec32d3d1a202, 0x0742e4f8af6a552b}, // 5
	{0x111301d0125b50a4, 0xebbf1aed9318ceac}, // 6
	{0x11429aaea92ddfb3, 0x4101943b2586d018}, // 7
	{0x1172b83c7d517adc, 0xdf7c8c50eb14a792}, // 8
	{0x11a35beb6fcb753c, 0xb698f692d1c835a7}, // 9
	{0x11d4873168b9aa78, 0x05b8028990f07a99}, // 10
	{0x12063b88628cd63b, 0x8eeb02950929d0fc}, // 11
	{0x12387a6e75623866, 0xc1fadb1c15cb593b}, // 12
	{0x126b4565e27cdd25, 0x7a673281d3b249dd}, // 13
	{0x129e9df51fdee12c, 0x25d15f5a24aa3bcb}, // 14
	{0x12d285a6e4030b40, 0x091d536d07538459}, // 15
	{0x1306fe0a31b7152d, 0xe8d5a46305c85edf}, // 16
	{0x133c08b26416ff4c, 0x9c8610d96696bf96}, // 17
	{0x1371a7373aa9caa7, 0x145502f4547987e4}, // 18
	{0x13a7db34e59ff6ea, 0x1bc9299e0a1d3361}, // 19
	{0x13dea64c12342235, 0xb41223e13d773fba}, // 20
	{0x14160a21f72e29f8, 0x4325b8f3db61fb35}, // 21
	{0x144e086061892d03, 0x136f409df019fbd5}, // 22
	{0x1486a2b5c13cd013, 0xc1a3b69062f03c3e}, // 23
	{0x14bfdad5362a271d, 0x4397afec42e20e03}, // 24
	{0x14f9b2769d2ca6ad, 0x33d8b69aa073ee56}, // 25
	{0x15342b569d4f81df, 0x0a83c49d86a63f4e}, // 26
	{0x156f4736b527da66, 0xecb004764eb3c00f}, // 27
	{0x15ab07dd48542958, 0xc93015191eb345d9}, // 28
	{0x15e76f15ad21486e, 0x9be4c20399766a06}, // 29
	{0x16247eb03a5584b1, 0xf0fa06fd2da42bb2}, // 30
	{0x1662388255222491, 0x27d9e29b8f314a33}, // 31
	{0x16a09e667f3bcc90, 0x8b2fb1366ea957d4}, // 32
	{0x16dfb23c651a2ef2, 0x20e2cbe1bbaa834b}, // 33
	{0x171f75e8ec5f73dd, 0x2370f2ef0acd6cb4}, // 34
	{0x175feb564267c8bf, 0x6e9aa33a48b27072}, // 35
	{0x17a11473eb0186d7, 0xd51023f6cda1f5ef}, // 36
	{0x17e2f336cf4e6210, 0x5d02ba15797e170a}, // 37
	{0x182589994cce128a, 0xcf88afab34a010f7}, // 38
	{0x1868d99b4492ec80, 0xe41d90ac25170748}, // 39
	{0x18ace5422aa0db5b, 0xa7c55a192c9bb3e7}, // 40
	{0x18f1ae991577362b, 0x982745c72ed804f0}, // 41
	{0x193737b0cdc5e4f4, 0x501c3f2540a22d30}, // 42
	{0x197d829fde4e4f8b, 0x9e920f91e8bd7edc}, // 43
	{0x19c49182a3f0901c, 0x7c46b071f2be58de}, // 44
	{0x1a0c667b5de564b2, 0x9ada8b8cab349aa0}, // 45
	{0x1a5503b23e255c8b, 0x424491caf87bc805}, // 46
	{0x1a9e6b5579fdbf43, 0xeb243bdff4c4c58b}, // 47
	{0x1ae89f995ad3ad5e, 0x8734d1773205a7fc}, // 48
	{0x1b33a2b84f15faf6, 0xbfd0e7bd947c2575}, // 49
	{0x1b7f76f2fb5e46ea, 0xa7b081ab53c5354d}, // 50
	{0x1bcc1e904bc1d224, 0x7ba0f45b3d08cd0b}, // 51
	{0x1c199bdd85529c22, 0x20cb12a091ba6679}, // 52
	{0x1c67f12e57d14b4a, 0x2137fd20f2b301de}, // 53
	{0x1cb720dcef906915, 0x03cbd1e949db761e}, // 54
	{0x1d072d4a07897b8d, 0x0f22f21a158e18fc}, // 55
	{0x1d5818dcfba48725, 0xda05aeb66e0dca9f}, // 56
	{0x1da9e603db328570, 0x8c01a5b6d4c97f62}, // 57
	{0x1dfc97337b9b5eb9, 0x68cac39ed291b722}, // 58
	{0x1e502ee78b3ff627, 0x3d130153991e8f49}, // 59
	{0x1ea4afa2a490d985, 0x8f73a18f5db301f8}, // 60
	{0x1efa1bee615a2777, 0x1fd21a92dac1f6dd}, // 61
	{0x1f50765b6e454067, 0x4f84b762862baffa}, // 62
	{0x1fa7c1819e90d82e, 0x90a7e74b263c1dc0}, // 63
}

// ln2over64Big is (log 2)/64 · 2^196 rounded to nearest, for reduceLarge.
var ln2over64Big, _ = new(big.Int).SetString("2c5c85fdf473de6af278ece600fcbdabd03cd0c99ca62d8b", 16)
