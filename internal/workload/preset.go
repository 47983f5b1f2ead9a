package workload

import (
	"time"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// mode is where a column's values come from.
type mode uint8

const (
	// modePayload is a fresh pseudo-random value per row: text and blobs are pool windows.
	modePayload mode = iota
	// modeIdentity is a one-to-one function of the number it is given: keys and unique columns.
	modeIdentity
	// modeBounded is one of card values, picked by a distribution.
	modeBounded
	// modeCycle is the row's entry of a fixed list of card values (a CSV column), starting
	// over at the end.
	modeCycle
)

// format shapes text values, so profiles look like the data of the experiments they copy.
type format uint8

const (
	fmtWords    format = iota // prose; identity and bounded values are words, then hex
	fmtHex                    // 16 hex digits
	fmtCode                   // two capital letters, like a country code
	fmtIP                     // dotted IPv4, IPv6 beyond 2^32
	fmtDegrees                // a signed decimal with four places, like a coordinate
	fmtDigits                 // zero-padded decimal
	fmtDatetime               // RFC 3339 timestamp
	fmtZone                   // UTC offset
)

// kind is the Go-level shape of a CQL type, switched on per value instead of the type name.
type kind uint8

const (
	kText kind = iota
	kBlob
	kBigint
	kInt
	kSmallint
	kTinyint
	kBoolean
	kFloat
	kDouble
	kDecimal
	kUUID
	kTimeUUID
	kTimestamp
	kDate
	kTime
	kInet
	kList // list and set: gocql takes a slice for both
	kMap
)

var kinds = map[string]kind{
	"ascii": kText, "text": kText, "varchar": kText, "blob": kBlob, "bigint": kBigint,
	"varint": kBigint, "int": kInt, "smallint": kSmallint, "tinyint": kTinyint,
	"boolean": kBoolean, "float": kFloat, "double": kDouble, "decimal": kDecimal,
	"uuid": kUUID, "timeuuid": kTimeUUID, "timestamp": kTimestamp, "date": kDate,
	"time": kTime, "inet": kInet, "list": kList, "set": kList, "map": kMap,
}

// preset is how one column is generated before it is built into a valueGen.
type preset struct {
	mode             mode
	card             uint64
	dist             cbv1.Distribution
	zipf             string
	sized            bool // minSize and maxSize were chosen; otherwise the type's defaults
	minSize, maxSize int  // bytes of text and blobs, elements of collections
	format           format
	span             uint64 // fmtDegrees: number of distinct values
	width            int    // fmtDigits
	prefix, suffix   string
	valueSize        bool // workload.valueSize sizes this column
}

// Fixed points in time, so that generated times do not depend on when the run happens.
var (
	baseTime  = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	baseDate  = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	tenYearsS = uint64(10 * 365 * 24 * time.Hour / time.Second)
)

const (
	// Bounded columns with at most boxLimit values, taking at most boxBudget bytes, are
	// rendered and boxed once: rows then hand out shared values without allocating.
	boxLimit  = 1 << 17
	boxBudget = 16 << 20
	// paletteSize is how many values formatted payload text (dates, coordinates, zip codes)
	// draws from: rendering them per row would cost more than everything else in it.
	paletteSize = 4096
	zoneCount   = 105 // UTC-12:00 to UTC+14:00 by quarter hours
	dateSpan    = 1 << 21
	timeOfDay   = uint64(24 * time.Hour)
	degreeSpan  = 1800001
	// datetimeSpan keeps generated datetimes within four digits of year.
	datetimeSpan = 250_000_000_000
	// Salts that separate the hashes one value draws for different purposes.
	sizeSalt  = 0x73697a65
	countSalt = 0x636f756e74
	keySalt   = 0x6b6579
)
