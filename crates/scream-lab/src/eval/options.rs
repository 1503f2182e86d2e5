//! Option sets: which of the library's opt-in improvements the senders of an evaluation
//! run with. A set is an [`Improvements`] value; its name lists the improvements that
//! are on, joined with `+` in the library's order (`fresh-srtt+media-deadline`), or is
//! `faithful` (none) or `all` (every one).

use std::fmt;
use std::str::FromStr;

use scream::sender::Improvements;
use scream_sim::scenario::ALL_IMPROVEMENTS;

/// The name of the set with no improvement on.
pub(crate) const FAITHFUL: &str = "faithful";
/// In a list of sets: each improvement alone.
pub(crate) const SINGLES: &str = "singles";
/// In a list of sets: every non-empty combination of improvements.
pub(crate) const SUBSETS: &str = "subsets";

/// Which improvements the senders run with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OptionSet {
    on: Improvements,
}

impl Default for OptionSet {
    fn default() -> Self {
        Self::faithful()
    }
}

impl OptionSet {
    /// None: the algorithm as the draft and the reference implementation have it.
    pub fn faithful() -> Self {
        Self::of(Improvements::default())
    }

    /// Every improvement the library knows.
    pub fn all() -> Self {
        Self::of(Improvements::all())
    }

    /// The set whose improvements are `on`.
    pub fn of(on: Improvements) -> Self {
        Self { on }
    }

    /// The improvements this set turns on.
    pub fn improvements(self) -> Improvements {
        self.on
    }

    /// Whether no improvement is on.
    pub fn is_faithful(self) -> bool {
        self.on == Improvements::default()
    }

    /// The names of the improvements that are on, in the library's order.
    pub fn enabled(self) -> Vec<&'static str> {
        self.on.enabled()
    }

    /// Each improvement alone, in the library's order.
    pub fn singles() -> Vec<Self> {
        (0..Improvements::names().len())
            .map(|i| Self::from_bits(1 << i))
            .collect()
    }

    /// Every non-empty set of improvements: by size (the singles first, `all` last),
    /// sets of one size in the library's order of their first differing improvement.
    /// `2^n - 1` sets for `n` improvements.
    pub fn subsets() -> Vec<Self> {
        let n = Improvements::names().len();
        assert!(n < 32, "{n} improvements are too many to combine");
        let mut masks: Vec<u32> = (1..(1u32 << n)).collect();
        masks.sort_by_key(|&m| (m.count_ones(), members(m, n)));
        masks.into_iter().map(Self::from_bits).collect()
    }

    /// Faithful, each improvement alone in the library's order, then all of them: the
    /// sets `scream eval v2` runs, and `scream eval robust` unless told otherwise.
    pub fn every() -> Vec<Self> {
        let mut out = vec![Self::faithful()];
        out.extend(Self::singles());
        out.push(Self::all());
        out
    }

    /// One set from its name: improvement names joined with `+` or `,` (in any order,
    /// each at most once), or `all`, or `faithful`.
    pub fn parse(spec: &str) -> Result<Self, String> {
        let spec = spec.trim();
        match spec {
            FAITHFUL => return Ok(Self::faithful()),
            ALL_IMPROVEMENTS => return Ok(Self::all()),
            _ => {}
        }
        let mut on = Improvements::default();
        for name in spec.split(['+', ',']).map(str::trim) {
            if name.is_empty() {
                return Err(format!("option set `{spec}`: an empty name; {}", allowed()));
            }
            if on.get(name) == Some(true) {
                return Err(format!("option set `{spec}`: `{name}` given twice"));
            }
            if let Some(into) = Improvements::folded_into(name) {
                return Err(format!(
                    "option set `{spec}`: `{name}` is now part of `{into}`"
                ));
            }
            on.set(name, true).map_err(|_| {
                format!("option set `{spec}`: unknown name `{name}`; {}", allowed())
            })?;
        }
        Ok(Self::of(on))
    }

    /// The sets `specs` ask for, faithful first (every set is judged against it), each
    /// once, in the order first asked for. A spec is a set ([`OptionSet::parse`]) or
    /// one of the keywords `singles` (each improvement alone) and `subsets` (every
    /// non-empty set). No spec: [`OptionSet::every`].
    pub fn select<S: AsRef<str>>(specs: &[S]) -> Result<Vec<Self>, String> {
        if specs.is_empty() {
            return Ok(Self::every());
        }
        let mut out = vec![Self::faithful()];
        for spec in specs {
            let spec = spec.as_ref().trim();
            let sets = match spec {
                SINGLES => Self::singles(),
                SUBSETS => Self::subsets(),
                _ => vec![Self::parse(spec)?],
            };
            for set in sets {
                if !out.contains(&set) {
                    out.push(set);
                }
            }
        }
        Ok(out)
    }

    /// The names a scenario's flow lists: none for faithful, `all` for every one, else
    /// the improvements that are on.
    pub(crate) fn names(self) -> Vec<String> {
        if self.is_faithful() {
            Vec::new()
        } else if self == Self::all() {
            vec![ALL_IMPROVEMENTS.to_owned()]
        } else {
            self.enabled().into_iter().map(str::to_owned).collect()
        }
    }

    fn from_bits(bits: u32) -> Self {
        let mut on = Improvements::default();
        for (i, name) in Improvements::names().iter().enumerate() {
            if bits & (1 << i) != 0 {
                // Every listed name is known.
                let _ = on.set(name, true);
            }
        }
        Self::of(on)
    }
}

/// The positions of the bits of `mask`, lowest first.
fn members(mask: u32, n: usize) -> Vec<usize> {
    (0..n).filter(|i| mask & (1 << i) != 0).collect()
}

/// What a set or a list of sets may name.
fn allowed() -> String {
    format!(
        "allowed: {} (joined with + or ,), or {ALL_IMPROVEMENTS}, {FAITHFUL}, and in \
         --options also {SINGLES}, {SUBSETS}",
        Improvements::names().join(", ")
    )
}

impl FromStr for OptionSet {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

impl fmt::Display for OptionSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_faithful() {
            f.write_str(FAITHFUL)
        } else if *self == Self::all() {
            f.write_str(ALL_IMPROVEMENTS)
        } else {
            f.write_str(&self.enabled().join("+"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_in_library_order() {
        let names = Improvements::names();
        for set in OptionSet::subsets()
            .into_iter()
            .chain([OptionSet::faithful()])
        {
            let name = set.to_string();
            assert_eq!(OptionSet::parse(&name), Ok(set), "{name}");
        }
        // Any order and either joiner give the same set, named in library order.
        let backwards = format!("{},{}", names[2], names[0]);
        let set = OptionSet::parse(&backwards).unwrap();
        assert_eq!(set.to_string(), format!("{}+{}", names[0], names[2]));
        assert_eq!(set.enabled(), [names[0], names[2]]);
        assert_eq!(OptionSet::parse(&names.join("+")), Ok(OptionSet::all()));
        assert_eq!(OptionSet::all().to_string(), "all");
        assert_eq!(OptionSet::faithful().names(), Vec::<String>::new());
        assert_eq!(OptionSet::all().names(), ["all"]);
        assert_eq!(set.names(), [names[0], names[2]]);
    }

    #[test]
    fn subsets_are_every_distinct_non_empty_set_by_size() {
        let n = Improvements::names().len();
        let subsets = OptionSet::subsets();
        assert_eq!(subsets.len(), (1 << n) - 1);
        let mut names: Vec<String> = subsets.iter().map(ToString::to_string).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), subsets.len());
        assert!(!subsets.contains(&OptionSet::faithful()));
        assert_eq!(subsets[..n], OptionSet::singles());
        assert_eq!(subsets.last(), Some(&OptionSet::all()));
        let sizes: Vec<usize> = subsets.iter().map(|s| s.enabled().len()).collect();
        assert!(sizes.windows(2).all(|w| w[0] <= w[1]), "{sizes:?}");
    }

    #[test]
    fn a_selection_puts_faithful_first_and_names_each_set_once() {
        assert_eq!(OptionSet::select::<&str>(&[]), Ok(OptionSet::every()));
        assert_eq!(
            OptionSet::select(&["singles", "all"]),
            Ok(OptionSet::every())
        );
        let n = Improvements::names().len();
        let all = OptionSet::select(&["all", "subsets", "faithful"]).unwrap();
        assert_eq!(all.len(), 1 << n);
        assert_eq!(all[..2], [OptionSet::faithful(), OptionSet::all()]);
        let pair = format!("{}+{}", Improvements::names()[1], Improvements::names()[0]);
        let two = OptionSet::select(&[pair.as_str()]).unwrap();
        assert_eq!(two.len(), 2);
        assert_eq!(two[1].enabled().len(), 2);
    }

    #[test]
    fn a_folded_name_says_where_it_went() {
        let e = OptionSet::parse("fresh-srtt+tail-loss-probe").unwrap_err();
        assert!(e.contains("now part of `outage-recovery`"), "{e}");
    }

    #[test]
    fn an_unknown_name_is_named_with_the_allowed_ones() {
        let first = Improvements::names()[0];
        let e = OptionSet::parse(&format!("{first}+warp-drive")).unwrap_err();
        assert!(e.contains("`warp-drive`"), "{e}");
        for name in Improvements::names() {
            assert!(e.contains(name), "{e}");
        }
        assert!(e.contains("subsets") && e.contains("faithful"), "{e}");
        let e = OptionSet::select(&["singles", "warp-drive"]).unwrap_err();
        assert!(e.contains("`warp-drive`"), "{e}");
        assert!(OptionSet::parse("").is_err());
        assert!(OptionSet::parse(&format!("{first}++{first}")).is_err());
        assert!(OptionSet::parse(&format!("{first},{first}")).is_err());
        // The keywords name lists of sets, not one set.
        assert!(OptionSet::parse("subsets").is_err());
    }
}
