package models

import (
	"math"
	"math/bits"
	"strings"
)

// iso4217 lists the active ISO 4217 currency codes.
const iso4217 = "AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BRL BSD BTN BWP " +
	"BYN BZD CAD CDF CHF CLP CNY COP CRC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP " +
	"GMD GNF GTQ GYD HKD HNL HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR KMF KPW KRW KWD KYD KZT " +
	"LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MYR MZN NAD NGN NIO NOK NPR NZD " +
	"OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC " +
	"SYP SZL THB TJS TMT TND TOP TRY TTD TWD TZS UAH UGX USD UYU UZS VES VND VUV WST XAF XCD XOF XPF YER ZAR " +
	"ZMW ZWG"

// ValidCurrency reports whether c is an active ISO 4217 code in upper case, such as EUR.
func ValidCurrency(c string) bool {
	if len(c) != 3 || strings.ToUpper(c) != c {
		return false
	}
	i := strings.Index(iso4217, c)
	return i >= 0 && i%4 == 0
}

// BasisPoints is a rate in hundredths of a percent: 1000 is 10 %.
type BasisPoints = int64

// MaxBasisPoints is 100 %; commission rates never exceed it.
const MaxBasisPoints BasisPoints = 10_000

// ApplyRate returns amount × bps / 10 000 in minor units, rounded half away from zero (0.5 of
// a minor unit rounds up for positive amounts and down for negative ones). ok is false when the
// result does not fit in int64 or the rate is negative.
func ApplyRate(amount int64, bps BasisPoints) (result int64, ok bool) {
	if bps < 0 {
		return 0, false
	}
	neg := amount < 0
	var abs uint64
	switch {
	case amount == math.MinInt64:
		abs = 1 << 63
	case neg:
		abs = uint64(-amount)
	default:
		abs = uint64(amount)
	}
	hi, lo := bits.Mul64(abs, uint64(bps))
	lo, carry := bits.Add64(lo, uint64(MaxBasisPoints/2), 0)
	hi += carry
	if hi >= uint64(MaxBasisPoints) {
		return 0, false
	}
	q, _ := bits.Div64(hi, lo, uint64(MaxBasisPoints))
	if q > math.MaxInt64 {
		return 0, false
	}
	if neg {
		return -int64(q), true
	}
	return int64(q), true
}

// AddMinor adds two amounts, reporting false when the sum overflows int64.
func AddMinor(a, b int64) (int64, bool) {
	s := a + b
	if (a > 0 && b > 0 && s < 0) || (a < 0 && b < 0 && s >= 0) {
		return 0, false
	}
	return s, true
}

// MaxAmountMinor bounds every amount the service takes in, in minor units (10^15: ten trillion
// in a currency of two decimals). A rate applied to it, or the sum of two, stays far inside
// int64, so quotes and postings need no more than the checked steps below.
const MaxAmountMinor int64 = 1_000_000_000_000_000

// ValidAmount reports whether amount lies within ±MaxAmountMinor.
func ValidAmount(amount int64) bool {
	return amount >= -MaxAmountMinor && amount <= MaxAmountMinor
}
