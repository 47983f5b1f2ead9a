"""Reads an HdrHistogram interval log with the Python HdrHistogram implementation (hdrhistogram
on PyPI, independent of the Go one that wrote it), for hdrlog_test.go.

Usage: read_hdr_log.py LOG PERCENTILE...
Prints JSON: for each tag, the total count, the max and the value at each percentile.
"""
import json
import sys

from hdrh.histogram import HdrHistogram
from hdrh.log import HistogramLogReader


def main():
    path, percentiles = sys.argv[1], sys.argv[2:]
    reader = HistogramLogReader(path, HdrHistogram(1, 3_600_000_000, 3))
    out = {}
    while True:
        h = reader.get_next_interval_histogram()
        if h is None:
            break
        out[h.get_tag()] = {
            "count": h.get_total_count(),
            "max": h.get_max_value(),
            "start": h.get_start_time_stamp(),
            "end": h.get_end_time_stamp(),
            "percentiles": {p: h.get_value_at_percentile(float(p)) for p in percentiles},
        }
    json.dump(out, sys.stdout)


main()
