//! The Porter stemmer (M. F. Porter, "An algorithm for suffix stripping", 1980), the
//! original algorithm, on lowercase ASCII words: the forms of an English word meet at one
//! stem (`connection`, `connected`, `connecting` → `connect`; `directories`, `directory` →
//! `directori`; `generalization` → `gener`). The exceptional forms of Porter's later
//! stemmer (Porter2) come first: "news" is not the plural of "new".

/// Whether `w[i]` is a consonant: a letter other than a vowel, and `y` only after a vowel.
fn consonant(w: &[u8], i: usize) -> bool {
    match w[i] {
        b'a' | b'e' | b'i' | b'o' | b'u' => false,
        b'y' => i == 0 || !consonant(w, i - 1),
        _ => true,
    }
}

/// The measure of `w`: how many vowel-consonant sequences it holds (`[C](VC){m}[V]`).
fn measure(w: &[u8]) -> usize {
    let mut m = 0;
    let mut previous_vowel = false;
    for i in 0..w.len() {
        let vowel = !consonant(w, i);
        if previous_vowel && !vowel {
            m += 1;
        }
        previous_vowel = vowel;
    }
    m
}

fn has_vowel(w: &[u8]) -> bool {
    (0..w.len()).any(|i| !consonant(w, i))
}

/// Ends with the same consonant twice (`*d`).
fn double_consonant(w: &[u8]) -> bool {
    let n = w.len();
    n >= 2 && w[n - 1] == w[n - 2] && consonant(w, n - 1)
}

/// Ends consonant-vowel-consonant, the last not `w`, `x` or `y` (`*o`: `hop`, not `snow`).
fn cvc(w: &[u8]) -> bool {
    let n = w.len();
    n >= 3
        && consonant(w, n - 3)
        && !consonant(w, n - 2)
        && consonant(w, n - 1)
        && !matches!(w[n - 1], b'w' | b'x' | b'y')
}

/// Whether `w` ends with `suffix`, its last letter compared first (most words end otherwise),
/// without a call to `memcmp` for a few bytes.
fn ends(w: &[u8], suffix: &str) -> bool {
    let s = suffix.as_bytes();
    w.len() >= s.len() && w.last() == s.last() && w[w.len() - s.len()..].iter().zip(s).all(|(a, b)| a == b)
}

/// Replaces the longest of `rules`' suffixes `w` ends with by its replacement when the stem
/// left has a measure above `min`; the rules after a match are not tried.
fn replace_suffix(w: &mut Vec<u8>, rules: &[(&str, &str)], min: usize) {
    if let Some((suffix, by)) = rules.iter().find(|(s, _)| ends(w, s)) {
        let stem = w.len() - suffix.len();
        if measure(&w[..stem]) > min {
            w.truncate(stem);
            w.extend_from_slice(by.as_bytes());
        }
    }
}

// Where one suffix ends another (`ational`, `tional`), the longer comes first: the first
// match is the longest.
const STEP2: &[(&str, &str)] = &[
    ("ational", "ate"),
    ("tional", "tion"),
    ("enci", "ence"),
    ("anci", "ance"),
    ("izer", "ize"),
    ("abli", "able"),
    ("alli", "al"),
    ("entli", "ent"),
    ("eli", "e"),
    ("ousli", "ous"),
    ("ization", "ize"),
    ("ation", "ate"),
    ("ator", "ate"),
    ("alism", "al"),
    ("iveness", "ive"),
    ("fulness", "ful"),
    ("ousness", "ous"),
    ("aliti", "al"),
    ("iviti", "ive"),
    ("biliti", "ble"),
];

const STEP3: &[(&str, &str)] = &[
    ("icate", "ic"),
    ("ative", ""),
    ("alize", "al"),
    ("iciti", "ic"),
    ("ical", "ic"),
    ("ful", ""),
    ("ness", ""),
];

const STEP4: &[&str] = &[
    "al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "ion", "ou", "ism", "ate", "iti",
    "ous", "ive", "ize",
];

/// Words the rules stem wrongly, and their stems: the exceptional forms of Porter's own
/// later English stemmer (Porter2, the Snowball `english` stemmer's `exception1` and
/// `exception2`), those the original rules get wrong ("news" is not the plural of "new",
/// "lying" is a form of "lie"), with the plurals `exception2` meets after step 1a.
const EXCEPTIONS: &[(&str, &str)] = &[
    ("andes", "andes"),
    ("atlas", "atlas"),
    ("bias", "bias"),
    ("canning", "canning"),
    ("cosmos", "cosmos"),
    ("dying", "die"),
    ("earring", "earring"),
    ("earrings", "earring"),
    ("exceed", "exceed"),
    ("exceeds", "exceed"),
    ("herring", "herring"),
    ("herrings", "herring"),
    ("howe", "howe"),
    ("inning", "inning"),
    ("innings", "inning"),
    ("lying", "lie"),
    ("news", "news"),
    ("outing", "outing"),
    ("outings", "outing"),
    ("proceed", "proceed"),
    ("proceeds", "proceed"),
    ("skies", "sky"),
    ("skis", "ski"),
    ("succeed", "succeed"),
    ("succeeds", "succeed"),
    ("tying", "tie"),
];

/// Stems `w` in place when it is a lowercase ASCII word of three letters or more; other
/// words are left as they are.
pub(super) fn stem(w: &mut Vec<u8>) {
    if w.len() <= 2 || !w.iter().all(u8::is_ascii_lowercase) {
        return;
    }
    if let Ok(i) = EXCEPTIONS.binary_search_by(|(word, _)| word.as_bytes().cmp(w)) {
        w.clear();
        w.extend_from_slice(EXCEPTIONS[i].1.as_bytes());
        return;
    }
    step1(w);
    // Step 2 and 3: derivational suffixes, for stems with a measure above 0.
    replace_suffix(w, STEP2, 0);
    replace_suffix(w, STEP3, 0);
    step4(w);
    step5(w);
}

fn step1(w: &mut Vec<u8>) {
    // 1a: plurals.
    if ends(w, "sses") || ends(w, "ies") {
        w.truncate(w.len() - 2);
    } else if ends(w, "s") && !ends(w, "ss") {
        w.pop();
    }
    // 1b: past tenses and participles.
    let mut tidy = false;
    if ends(w, "eed") {
        if measure(&w[..w.len() - 3]) > 0 {
            w.pop();
        }
    } else if ends(w, "ed") && has_vowel(&w[..w.len() - 2]) {
        w.truncate(w.len() - 2);
        tidy = true;
    } else if ends(w, "ing") && has_vowel(&w[..w.len() - 3]) {
        w.truncate(w.len() - 3);
        tidy = true;
    }
    if tidy {
        if ends(w, "at") || ends(w, "bl") || ends(w, "iz") {
            w.push(b'e');
        } else if double_consonant(w) && !matches!(w.last(), Some(b'l' | b's' | b'z')) {
            w.pop();
        } else if measure(w) == 1 && cvc(w) {
            w.push(b'e');
        }
    }
    // 1c: a final `y` after a vowel somewhere before becomes `i`.
    if ends(w, "y") && has_vowel(&w[..w.len() - 1]) {
        let n = w.len();
        w[n - 1] = b'i';
    }
}

fn step4(w: &mut Vec<u8>) {
    let Some(suffix) = STEP4.iter().filter(|s| ends(w, s)).max_by_key(|s| s.len()) else {
        return;
    };
    let stem = w.len() - suffix.len();
    let ion_ok = *suffix != "ion" || matches!(w[..stem].last(), Some(b's' | b't'));
    if ion_ok && measure(&w[..stem]) > 1 {
        w.truncate(stem);
    }
}

fn step5(w: &mut Vec<u8>) {
    if ends(w, "e") {
        let stem = &w[..w.len() - 1];
        let m = measure(stem);
        if m > 1 || (m == 1 && !cvc(stem)) {
            w.pop();
        }
    }
    if measure(w) > 1 && double_consonant(w) && ends(w, "l") {
        w.pop();
    }
}

#[cfg(test)]
mod tests {
    fn stem(word: &str) -> String {
        let mut w = word.as_bytes().to_vec();
        super::stem(&mut w);
        String::from_utf8(w).unwrap()
    }

    /// The examples of Porter's paper, each step's.
    #[test]
    fn the_papers_examples() {
        let cases = [
            // 1a
            ("caresses", "caress"),
            ("ponies", "poni"),
            ("ties", "ti"),
            ("caress", "caress"),
            ("cats", "cat"),
            // 1b
            ("feed", "feed"),
            ("agreed", "agre"),
            ("plastered", "plaster"),
            ("bled", "bled"),
            ("motoring", "motor"),
            ("sing", "sing"),
            ("conflated", "conflat"),
            ("troubled", "troubl"),
            ("sized", "size"),
            ("hopping", "hop"),
            ("tanned", "tan"),
            ("falling", "fall"),
            ("hissing", "hiss"),
            ("fizzed", "fizz"),
            ("failing", "fail"),
            ("filing", "file"),
            // 1c
            ("happy", "happi"),
            ("sky", "sky"),
            // 2
            ("relational", "relat"),
            ("conditional", "condit"),
            ("rational", "ration"),
            ("valenci", "valenc"),
            ("hesitanci", "hesit"),
            ("digitizer", "digit"),
            ("conformabli", "conform"),
            ("radicalli", "radic"),
            ("differentli", "differ"),
            ("vileli", "vile"),
            ("analogousli", "analog"),
            ("vietnamization", "vietnam"),
            ("predication", "predic"),
            ("operator", "oper"),
            ("feudalism", "feudal"),
            ("decisiveness", "decis"),
            ("hopefulness", "hope"),
            ("callousness", "callous"),
            ("formaliti", "formal"),
            ("sensitiviti", "sensit"),
            ("sensibiliti", "sensibl"),
            // 3
            ("triplicate", "triplic"),
            ("formative", "form"),
            ("formalize", "formal"),
            ("electriciti", "electr"),
            ("electrical", "electr"),
            ("hopeful", "hope"),
            ("goodness", "good"),
            // 4
            ("revival", "reviv"),
            ("allowance", "allow"),
            ("inference", "infer"),
            ("airliner", "airlin"),
            ("gyroscopic", "gyroscop"),
            ("adjustable", "adjust"),
            ("defensible", "defens"),
            ("irritant", "irrit"),
            ("replacement", "replac"),
            ("adjustment", "adjust"),
            ("dependent", "depend"),
            ("adoption", "adopt"),
            ("homologou", "homolog"),
            ("communism", "commun"),
            ("activate", "activ"),
            ("angulariti", "angular"),
            ("homologous", "homolog"),
            ("effective", "effect"),
            ("bowdlerize", "bowdler"),
            // 5
            ("probate", "probat"),
            ("rate", "rate"),
            ("cease", "ceas"),
            ("controll", "control"),
            ("roll", "roll"),
        ];
        for (word, expected) in cases {
            assert_eq!(stem(word), expected, "{word}");
        }
    }

    /// Porter2's exceptional forms: the words themselves, or the stem of the word they are
    /// a form of.
    #[test]
    fn exceptional_forms() {
        assert!(
            super::EXCEPTIONS.windows(2).all(|p| p[0].0 < p[1].0),
            "sorted, for the search"
        );
        for (word, expected) in [
            ("news", "news"),
            ("bias", "bias"),
            ("atlas", "atlas"),
            ("lying", "lie"),
            ("dying", "die"),
            ("skies", "sky"),
            ("innings", "inning"),
            ("proceeds", "proceed"),
        ] {
            assert_eq!(stem(word), expected, "{word}");
        }
        // The word they are a form of meets them; a word of which they are not, does not.
        assert_eq!(stem("lie"), stem("lying"));
        assert_eq!(stem("sky"), stem("skies"));
        assert_ne!(stem("new"), stem("news"));
        // Words beside them are stemmed by the rules.
        assert_eq!(stem("newsy"), "newsi");
        assert_eq!(stem("biases"), "bias");
    }

    #[test]
    fn forms_meet() {
        for group in [
            &["connect", "connected", "connecting", "connection", "connections"][..],
            &["directory", "directories"],
            &["file", "files", "filing"],
            &["list", "listing", "listed", "lists"],
            &["navigate", "navigation", "navigating"],
        ] {
            let stems: Vec<_> = group.iter().map(|w| stem(w)).collect();
            assert!(stems.windows(2).all(|s| s[0] == s[1]), "{group:?}: {stems:?}");
        }
    }

    #[test]
    fn other_words_are_kept() {
        for word in ["über", "straße", "ab", "x", "", "v2", "base64", "Files"] {
            assert_eq!(stem(word), word);
        }
    }
}
