package channel

import "testing"

// TestMinPriceX128 checks worked examples by hand against the SDK's formula,
// getPriceX128FromPrice(minPrice) = minPrice · 2^128 · 10^(destDecimals − srcDecimals) rounded
// half up, where minPrice is the human price (destination per source) with destDecimals places.
// 2^128 = 340282366920938463463374607431768211456. Ours rounds up instead of half up, so it is
// the SDK's value or one more, never less: a swap that meets it pays at least minOut.
func TestMinPriceX128(t *testing.T) {
	tests := []struct {
		name             string
		minOut, amountIn string
		srcDec, dstDec   int
		want, sdk        string
	}{
		{
			// 1 ETH -> at least 2500 USDC. minPrice 2500; 2500·2^128/10^12 =
			// 850705917302346158658436518579.42... -> SDK ...579, ours ...580.
			name: "ETH to USDC", minOut: "2500000000", amountIn: "1000000000000000000", srcDec: 18, dstDec: 6,
			want: "850705917302346158658436518580", sdk: "850705917302346158658436518579",
		},
		{
			// 100 USDC -> at least 0.03 ETH. minPrice 0.0003; 0.0003·2^128·10^12 is exact.
			name: "USDC to ETH", minOut: "30000000000000000", amountIn: "100000000", srcDec: 6, dstDec: 18,
			want: "102084710076281539039012382229530463436800000000", sdk: "102084710076281539039012382229530463436800000000",
		},
		{
			// 0.5 BTC -> at least 1234.567891234 SOL. minPrice 2469.135782468 (9 places, exact);
			// 2469.135782468·2^128·10 = ...307142194.41553408 -> SDK ...194, ours ...195.
			name: "BTC to SOL", minOut: "1234567891234", amountIn: "50000000", srcDec: 8, dstDec: 9,
			want: "8402033683073944728765170905808413307142195", sdk: "8402033683073944728765170905808413307142194",
		},
		{
			// 3 units of a 6-decimal stable -> at least 2 units: minPrice 0.666666... cut to 6
			// places rounds up to 0.666667 so the floor never undercuts 2/3.
			name: "rounding up the price", minOut: "2", amountIn: "3", srcDec: 6, dstDec: 6,
			want: "226855024708081282621737559412714618227", sdk: "226855024708081282621737559412714618227",
		},
		{name: "no minimum", minOut: "0", amountIn: "5", srcDec: 8, dstDec: 18, want: "0", sdk: "0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := MinPriceX128(tt.minOut, tt.amountIn, tt.srcDec, tt.dstDec)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Fatalf("MinPriceX128 = %s; want %s", got, tt.want)
			}
			if cmp := len(got) - len(tt.sdk); cmp < 0 || (cmp == 0 && got < tt.sdk) {
				t.Fatalf("%s is below the SDK's %s", got, tt.sdk)
			}
		})
	}
	for _, bad := range [][2]string{{"1", "0"}, {"x", "1"}, {"1", "-3"}} {
		if _, err := MinPriceX128(bad[0], bad[1], 6, 6); err == nil {
			t.Errorf("MinPriceX128(%s, %s) accepted", bad[0], bad[1])
		}
	}
}

func TestMaxAmount(t *testing.T) {
	for _, tt := range [][3]string{{"5", "7", "7"}, {"7", "5", "7"}, {"5", "", "5"}, {"5", "x", "5"}, {"100000000000000000000", "99999999999999999999", "100000000000000000000"}} {
		if got := maxAmount(tt[0], tt[1]); got != tt[2] {
			t.Errorf("maxAmount(%s, %s) = %s; want %s", tt[0], tt[1], got, tt[2])
		}
	}
}
