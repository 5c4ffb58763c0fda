//! Audsley's optimal priority assignment as a generic search: priority
//! levels are filled from the lowest up; at each level the candidates are
//! tried in the caller's order, and the first that passes the caller's
//! per-level test (assuming every item still unassigned has a higher
//! priority) takes the level. Knows nothing about tasks or analyses.

/// Assigns the ranks `1..=m` (1 = lowest) to the items `0..m`.
///
/// - `candidates(levels, out)` fills `out` with the unassigned items
///   allowed at the next level, in the order to try them (`levels[x]` is
///   `Some(rank)` for the items assigned so far, `None` for the others);
/// - `passes(x, levels)` tests item `x` at the level in `levels[x]`, every
///   `None` item being above it.
///
/// Returns the rank of every item, or `None` when some level has no
/// candidate that passes. At most `m(m+1)/2` tests.
pub fn audsley(
    m: usize,
    mut candidates: impl FnMut(&[Option<u32>], &mut Vec<usize>),
    mut passes: impl FnMut(usize, &[Option<u32>]) -> bool,
) -> Option<Vec<u32>> {
    let mut levels: Vec<Option<u32>> = vec![None; m];
    let mut cand = Vec::with_capacity(m);
    for level in 1..=m as u32 {
        cand.clear();
        candidates(&levels, &mut cand);
        let mut chosen = false;
        for &x in &cand {
            debug_assert!(levels[x].is_none(), "candidate {x} already assigned");
            levels[x] = Some(level);
            if passes(x, &levels) {
                chosen = true;
                break;
            }
            levels[x] = None;
        }
        if !chosen {
            return None;
        }
    }
    Some(levels.into_iter().map(|l| l.unwrap_or(0)).collect())
}

#[cfg(test)]
mod tests {
    use super::audsley;

    #[test]
    fn fills_levels_from_the_lowest_with_the_first_passing_candidate() {
        // Item x passes at rank r iff r >= need[x] (a higher rank is easier).
        // Level 1: 0 fails, 1 passes; level 2: 0 fails, 2 passes; level 3:
        // 0 passes. Five tests.
        let need = [3u32, 1, 2];
        let mut tests = 0;
        let r = audsley(
            3,
            |levels, out| out.extend((0..3).filter(|&x| levels[x].is_none())),
            |x, levels| {
                tests += 1;
                levels[x].unwrap() >= need[x]
            },
        );
        assert_eq!(r, Some(vec![3, 1, 2]));
        assert_eq!(tests, 5);
    }

    #[test]
    fn no_candidate_passing_a_level_fails() {
        let r = audsley(
            2,
            |levels, out| out.extend((0..2).filter(|&x| levels[x].is_none())),
            |x, levels| levels[x].unwrap() <= 1 && x == 0,
        );
        assert_eq!(r, None);
    }
}
