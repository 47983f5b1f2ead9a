package workload

import cbv1 "github.com/cassbench/cassbench/api/v1alpha1"

// profile is a built-in table: its CREATE TABLE, parsed like any user's, and how its columns
// are generated where the type alone would not look like the experiment's data.
type profile struct {
	cql     string
	presets map[string]preset
}

// Shared shapes of the profiles' columns.
var (
	countries = preset{mode: modeBounded, card: 250, dist: cbv1.DistributionZipf, format: fmtCode}
	regions   = preset{mode: modeBounded, card: 4000, format: fmtWords}
	latitude  = preset{format: fmtDegrees, span: degreeSpan}
	longitude = preset{format: fmtDegrees, span: 2*degreeSpan - 1}
	zip       = preset{format: fmtDigits, width: 5}
	zones     = preset{mode: modeBounded, card: zoneCount, format: fmtZone}
	datetime  = preset{format: fmtDatetime}
	uniqueHex = preset{mode: modeIdentity, format: fmtHex}
)

func bounded(card uint64, dist cbv1.Distribution) preset {
	return preset{mode: modeBounded, card: card, dist: dist}
}

// sized is a payload column of lengths (or element counts) in [lo, hi].
func sized(lo, hi int) preset {
	return preset{sized: true, minSize: lo, maxSize: hi}
}

func withValueSize(p preset) preset {
	p.valueSize = true
	return p
}

var profiles = map[cbv1.TableProfile]profile{
	cbv1.ProfileKeyValue: {
		cql: `CREATE TABLE key_value (key bigint PRIMARY KEY, value blob)`,
		presets: map[string]preset{
			"value": withValueSize(sized(100, 100)),
		},
	},
	// Seed 000: one partition per country, so a few countries take most writes of every writer.
	cbv1.ProfileIPByCountry: {
		cql: `CREATE TABLE hosts_by_country (country text, ip text, region text, city text,
			lati text, longi text, izp text, timezone text, PRIMARY KEY ((country), ip))`,
		presets: map[string]preset{
			"country": countries, "ip": {mode: modeIdentity, format: fmtIP},
			"region": regions, "city": bounded(100_000, ""),
			"lati": latitude, "longi": longitude, "izp": zip, "timezone": zones,
		},
	},
	// Seed 000 again: the same data spread over a partition per city.
	cbv1.ProfileIPByCity: {
		cql: `CREATE TABLE hosts_by_city (country text, region text, city text, ip text,
			lati text, longi text, izp text, timezone text, PRIMARY KEY ((country, region, city), ip))`,
		presets: map[string]preset{
			"country": countries, "region": regions, "city": {mode: modeIdentity},
			"ip":   {mode: modeIdentity, format: fmtIP},
			"lati": latitude, "longi": longitude, "izp": zip, "timezone": zones,
		},
	},
	// Seed 002: page revisions, newest first, with a few KB of compressible wikitext each.
	cbv1.ProfileRevisions: {
		cql: `CREATE TABLE revisions (title text, rev timeuuid, author text, comment text,
			content text, PRIMARY KEY (title, rev)) WITH CLUSTERING ORDER BY (rev DESC)`,
		presets: map[string]preset{
			"author":  bounded(10_000, cbv1.DistributionZipf),
			"comment": sized(8, 80),
			"content": withValueSize(sized(2048, 8192)),
		},
	},
	// Seed 003: a user-tracking record of about 400 bytes, written with a TTL and read back.
	cbv1.ProfileUserProfile: {
		cql: `CREATE TABLE user_profiles (id uuid PRIMARY KEY, updated timestamp, country text,
			segments set<int>, attributes blob)`,
		presets: map[string]preset{
			"country":    countries,
			"segments":   sized(2, 8),
			"attributes": withValueSize(sized(320, 380)),
		},
	},
	// Seed 000's external counters: addresses counted per city by every ingesting runner, a
	// counter row per partition of ip-by-city.
	cbv1.ProfileCounters: {
		cql: `CREATE TABLE ip_counts (country text, region text, city text, ips counter,
			PRIMARY KEY ((country, region, city)))`,
		presets: map[string]preset{"country": countries, "region": regions, "city": {mode: modeIdentity}},
	},
	// Seed 004: the wide user table, whose indexed columns are unique so index reads find a row.
	cbv1.ProfileUserWide: {
		cql: `CREATE TABLE users (id text PRIMARY KEY, channel text, countrycode text,
			createdby text, createddate text, currentlogintime text, dob text, email text,
			emailverified boolean, firstname text, flagsvalue int,
			framework map<text, frozen<list<text>>>, gender text, grade list<text>,
			language list<text>, lastname text, loginid text, password text, phone text,
			phoneverified boolean, profilevisibility map<text, text>, status int,
			updatedby text, updateddate text, userid text, username text, usertype text)`,
		presets: map[string]preset{
			"id":      uniqueHex,
			"channel": bounded(20, ""), "countrycode": countries,
			"createdby": bounded(1000, cbv1.DistributionZipf), "createddate": datetime,
			"currentlogintime": datetime, "dob": datetime,
			"email":     {mode: modeIdentity, format: fmtHex, suffix: "@example.com"},
			"firstname": bounded(5000, cbv1.DistributionZipf), "flagsvalue": bounded(16, ""),
			"framework": sized(1, 3), "gender": bounded(3, ""),
			"grade": sized(1, 3), "language": sized(1, 2),
			"lastname": bounded(20_000, cbv1.DistributionZipf), "loginid": uniqueHex,
			"password":          sized(60, 60),
			"phone":             {mode: modeIdentity, format: fmtDigits, width: 10, prefix: "+"},
			"profilevisibility": sized(1, 5), "status": bounded(3, ""),
			"updatedby": bounded(1000, cbv1.DistributionZipf), "updateddate": datetime,
			"userid": uniqueHex, "username": {mode: modeIdentity, format: fmtHex, prefix: "user_"},
			"usertype": bounded(4, ""),
		},
	},
}
