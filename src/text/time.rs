//! Times as text: the UTC calendar date and time of a Unix time, and the
//! Unix time of an RFC 3339 text as the API server and the platform write
//! it. One calendar conversion for every caller (the certificate's expiry,
//! the bundle's file name, SOPS's `lastmodified`, managedFields' and the
//! platform's times), so a fix to it is made once.

/// A UTC calendar date and time of day.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Civil {
    pub year: i64,
    pub month: i64,
    pub day: i64,
    pub hour: i64,
    pub minute: i64,
    pub second: i64,
}

impl Civil {
    /// The UTC date and time of `unix` (seconds since 1970-01-01T00:00:00Z;
    /// negative before it).
    pub fn of(unix: i64) -> Civil {
        let days = unix.div_euclid(86_400);
        let secs = unix.rem_euclid(86_400);
        // Days since 0000-03-01 split into 400-year eras of 146,097 days
        // (Howard Hinnant's civil-from-days); a year starting in March puts
        // the leap day last.
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z - era * 146_097;
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = doy - (153 * mp + 2) / 5 + 1;
        let month = if mp < 10 { mp + 3 } else { mp - 9 };
        Civil {
            year: yoe + era * 400 + i64::from(month <= 2),
            month,
            day,
            hour: secs / 3600,
            minute: secs % 3600 / 60,
            second: secs % 60,
        }
    }

    /// Seconds since the Unix epoch of this date and time (its inverse).
    pub fn unix(&self) -> i64 {
        let y = if self.month <= 2 {
            self.year - 1
        } else {
            self.year
        };
        let era = y.div_euclid(400);
        let yoe = y - era * 400;
        let mp = (self.month + 9) % 12;
        let doy = (153 * mp + 2) / 5 + self.day - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        let days = era * 146_097 + doe - 719_468;
        days * 86_400 + self.hour * 3600 + self.minute * 60 + self.second
    }
}

/// Seconds since the Unix epoch of an RFC 3339 time: `2026-11-22T20:50:00Z`,
/// with or without a fraction, `Z`, `z`, no zone (read as UTC) or a
/// `±hh:mm` offset; `t` or a space may stand for `T`. None for anything
/// else.
pub fn parse_rfc3339(text: &str) -> Option<i64> {
    let text = text.trim();
    let b = text.as_bytes();
    if b.len() < 19 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') {
        return None;
    }
    let num = |range: std::ops::Range<usize>| {
        let part = text.get(range)?;
        part.bytes().all(|c| c.is_ascii_digit()).then_some(())?;
        part.parse::<i64>().ok()
    };
    let civil = Civil {
        year: num(0..4)?,
        month: num(5..7)?,
        day: num(8..10)?,
        hour: num(11..13)?,
        minute: num(14..16)?,
        second: num(17..19)?,
    };
    if !(1..=12).contains(&civil.month) || !(1..=31).contains(&civil.day) {
        return None;
    }
    let zone = text[19..].trim_start_matches(|c: char| c == '.' || c.is_ascii_digit());
    let offset = match zone {
        "Z" | "z" | "" => 0,
        z if z.len() == 6 && (z.starts_with('+') || z.starts_with('-')) && &z[3..4] == ":" => {
            let hours: i64 = z.get(1..3)?.parse().ok()?;
            let minutes: i64 = z.get(4..6)?.parse().ok()?;
            let sign = if z.starts_with('-') { -1 } else { 1 };
            sign * (hours * 3600 + minutes * 60)
        }
        _ => return None,
    };
    Some(civil.unix() - offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_of_known_times() {
        let c = Civil::of(0);
        assert_eq!((c.year, c.month, c.day, c.hour), (1970, 1, 1, 0));
        // 2024-02-29T12:34:56Z: a leap day.
        let c = Civil::of(1_709_210_096);
        assert_eq!(
            (c.year, c.month, c.day, c.hour, c.minute, c.second),
            (2024, 2, 29, 12, 34, 56)
        );
        // The day before the epoch.
        let c = Civil::of(-1);
        assert_eq!(
            (c.year, c.month, c.day, c.hour, c.minute, c.second),
            (1969, 12, 31, 23, 59, 59)
        );
    }

    #[test]
    fn parse_is_the_inverse_of_of() {
        for unix in [0, 951_782_400, 1_709_210_096, 4_102_444_800, 1_795_000_000] {
            let c = Civil::of(unix);
            let text = format!(
                "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z",
                c.year, c.month, c.day, c.hour, c.minute, c.second
            );
            assert_eq!(parse_rfc3339(&text), Some(unix), "{text}");
        }
    }

    #[test]
    fn rfc3339_forms() {
        let utc = parse_rfc3339("2026-11-22T20:50:00Z");
        assert_eq!(utc, Some(1_795_380_600));
        assert_eq!(parse_rfc3339("2026-11-22T20:50:00.123Z"), utc);
        assert_eq!(parse_rfc3339("2026-11-22 20:50:00"), utc);
        assert_eq!(parse_rfc3339("2026-11-22T22:50:00+02:00"), utc);
        assert_eq!(parse_rfc3339("2026-11-22T19:50:00-01:00"), utc);
        for bad in [
            "",
            "2026-11-22",
            "2026-13-22T20:50:00Z",
            "2026-11-22T20:50:00 UTC",
            "2026-11-22T2x:50:00Z",
            "+026-11-22T20:50:00Z",
        ] {
            assert_eq!(parse_rfc3339(bad), None, "{bad:?}");
        }
    }
}
