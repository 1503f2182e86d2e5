//! Which seeds a set runs: `--seeds 1..10` on the command line, `seeds="1..10"` (or a
//! list, or a range) in Python, checked by the same rules.

use super::MAX_SEEDS;

/// What a seed set takes, for the error messages.
const FORM: &str = "give a range A..B (seeds A to B, both included: 1..10 is ten seeds) or a \
                    comma-separated list such as 1,4,9";

/// Parses a seed set's text: comma-separated items, each a seed `N` or an inclusive
/// range `A..B` (`A..=B` reads the same), at most [`MAX_SEEDS`] seeds in all, none
/// twice; the seeds in the order given.
pub fn parse_seeds(text: &str) -> Result<Vec<u64>, String> {
    let number = |s: &str| {
        s.trim().parse::<u64>().map_err(|_| {
            format!(
                "`{}` is not a seed (a whole number from 0 to {}); {FORM}",
                s.trim(),
                u64::MAX
            )
        })
    };
    let too_many =
        |n: u128| format!("{text} is {n} seeds; at most {MAX_SEEDS} run in one set: {FORM}");
    let mut seeds: Vec<u64> = Vec::new();
    for item in text.split(',') {
        let item = item.trim();
        if item.is_empty() {
            return Err(format!("an empty item in `{text}`; {FORM}"));
        }
        let Some((from, to)) = item.split_once("..") else {
            seeds.push(number(item)?);
            continue;
        };
        let (from, to) = (number(from)?, number(to.strip_prefix('=').unwrap_or(to))?);
        if from > to {
            return Err(format!(
                "the range {item} is empty ({from} > {to}): a range A..B needs A no larger \
                 than B (seeds A to B, both included), or give a comma-separated list such \
                 as 1,4,9"
            ));
        }
        // Counted before any seed is listed: 0..18446744073709551615 must not fill memory.
        let count = u128::from(to - from) + 1 + seeds.len() as u128;
        if count > MAX_SEEDS as u128 {
            return Err(too_many(count));
        }
        seeds.extend(from..=to);
    }
    if seeds.len() > MAX_SEEDS {
        return Err(too_many(seeds.len() as u128));
    }
    check_seeds(&seeds, &format!("`{text}`"))?;
    Ok(seeds)
}

/// Checks a list of seeds given as numbers (`what` names it in messages): at least
/// one, at most [`MAX_SEEDS`], none twice.
pub fn check_seeds(seeds: &[u64], what: &str) -> Result<(), String> {
    if seeds.is_empty() {
        return Err(format!("{what} holds no seed; {FORM}"));
    }
    if seeds.len() > MAX_SEEDS {
        return Err(format!(
            "{what} is {} seeds; at most {MAX_SEEDS} run in one set",
            seeds.len()
        ));
    }
    let mut sorted = seeds.to_vec();
    sorted.sort_unstable();
    if let Some(twice) = sorted.windows(2).find(|w| w[0] == w[1]) {
        return Err(format!(
            "seed {} appears twice in {what}; each seed runs once",
            twice[0]
        ));
    }
    Ok(())
}

/// `1..10` for consecutive seeds, else the list (shortened past a few).
pub fn describe(seeds: &[u64]) -> String {
    const SHOWN: usize = 8;
    let consecutive = seeds.windows(2).all(|w| w[0].checked_add(1) == Some(w[1]));
    match seeds {
        [first, .., last] if consecutive => format!("{first}..{last}"),
        _ if seeds.len() <= SHOWN => {
            let list: Vec<String> = seeds.iter().map(u64::to_string).collect();
            list.join(",")
        }
        _ => {
            let list: Vec<String> = seeds.iter().take(SHOWN).map(u64::to_string).collect();
            format!("{},… ({} in all)", list.join(","), seeds.len())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_include_both_ends_and_lists_keep_their_order() {
        assert_eq!(parse_seeds("1..10"), Ok((1..=10).collect()));
        assert_eq!(parse_seeds("3..=5"), Ok(vec![3, 4, 5]));
        assert_eq!(parse_seeds("9, 1,4"), Ok(vec![9, 1, 4]));
        assert_eq!(parse_seeds("1..3,7"), Ok(vec![1, 2, 3, 7]));
        assert_eq!(parse_seeds("7"), Ok(vec![7]));
    }

    #[test]
    fn a_bad_set_says_why_and_what_is_allowed() {
        let e = parse_seeds("5..1").unwrap_err();
        assert!(
            e.contains("5..1 is empty (5 > 1)") && e.contains("A..B"),
            "{e}"
        );
        let e = parse_seeds("1..x").unwrap_err();
        assert!(
            e.contains("`x` is not a seed") && e.contains("1,4,9"),
            "{e}"
        );
        let e = parse_seeds("1,,2").unwrap_err();
        assert!(e.contains("empty item"), "{e}");
        let e = parse_seeds("1..3,2").unwrap_err();
        assert!(e.contains("seed 2 appears twice in `1..3,2`"), "{e}");
        let e = parse_seeds("0..18446744073709551615").unwrap_err();
        assert!(e.contains("at most 10000"), "{e}");
        assert!(parse_seeds("1..10000").is_ok());
        let e = parse_seeds("1..10000,10001").unwrap_err();
        assert!(e.contains("10001 seeds"), "{e}");
        let e = parse_seeds("-1").unwrap_err();
        assert!(e.contains("`-1` is not a seed"), "{e}");
    }

    #[test]
    fn a_list_of_numbers_is_checked_by_the_same_rules() {
        assert_eq!(check_seeds(&[3, 1, 2], "seeds"), Ok(()));
        let e = check_seeds(&[], "seeds").unwrap_err();
        assert!(e.contains("seeds holds no seed"), "{e}");
        let e = check_seeds(&[4, 9, 4], "seeds").unwrap_err();
        assert!(e.contains("seed 4 appears twice in seeds"), "{e}");
        let many: Vec<u64> = (0..=MAX_SEEDS as u64).collect();
        assert!(
            check_seeds(&many, "seeds")
                .unwrap_err()
                .contains("10001 seeds")
        );
    }

    #[test]
    fn seeds_are_described_as_a_range_when_consecutive() {
        assert_eq!(describe(&[1, 2, 3]), "1..3");
        assert_eq!(describe(&[1, 4, 9]), "1,4,9");
        assert_eq!(describe(&[5]), "5");
        let many: Vec<u64> = (0..20).map(|i| i * 2).collect();
        assert_eq!(describe(&many), "0,2,4,6,8,10,12,14,… (20 in all)");
    }
}
