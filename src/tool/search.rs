//! tool/search.rs: scores deferred tools against a `tool_search` query by their names and
//! descriptions. It only ranks; activating the matches is the ToolBox's job.

/// How many tools one search activates when the model does not say.
pub(crate) const DEFAULT_LIMIT: usize = 5;

/// Weights of the signals; a name is a much stronger signal than a description.
const WHOLE_NAME: f64 = 10.0;
const NAME_WORD: f64 = 3.0;
const NAME_PREFIX: f64 = 1.5;
const DESCRIPTION_WORD: f64 = 1.0;
const DESCRIPTION_PREFIX: f64 = 0.5;

/// Query words shorter than this only count as whole words, never as prefixes, so `a` does not
/// match everything.
const MIN_PREFIX_LEN: usize = 3;

/// The relevance of a tool to a query; zero means no match.
///
/// The query and the tool's name and description are split into lowercase words (letters and
/// digits; `_`, `-` and spaces separate). A query equal to the whole name scores highest; then
/// each query word scores for every name word it equals or begins, and for description words it
/// equals or begins, once per query word.
pub(crate) fn score(query: &str, name: &str, description: &str) -> f64 {
    let query_words = words(query);
    if query_words.is_empty() {
        return 0.0;
    }
    let name_words = words(name);
    let description_words = words(description);
    let mut total = if query_words == name_words {
        WHOLE_NAME
    } else {
        0.0
    };
    for word in &query_words {
        total += best(word, &name_words, NAME_WORD, NAME_PREFIX);
        total += best(
            word,
            &description_words,
            DESCRIPTION_WORD,
            DESCRIPTION_PREFIX,
        );
    }
    total
}

/// The best score one query word earns against a list of words.
fn best(word: &str, candidates: &[String], exact: f64, prefix: f64) -> f64 {
    if candidates.iter().any(|candidate| candidate == word) {
        exact
    } else if word.len() >= MIN_PREFIX_LEN && candidates.iter().any(|c| c.starts_with(word)) {
        prefix
    } else {
        0.0
    }
}

fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_outweigh_descriptions_and_prefixes_count_less_than_words() {
        let by_name = score("browser", "browser_click", "Clicks an element.");
        let by_description = score("browser", "click", "Clicks an element in the browser.");
        let by_prefix = score("brow", "browser_click", "Clicks an element.");
        assert!(by_name > by_description, "{by_name} > {by_description}");
        assert!(by_name > by_prefix, "{by_name} > {by_prefix}");
        assert!(by_prefix > 0.0);
    }

    #[test]
    fn a_query_equal_to_the_name_scores_highest() {
        assert!(score("read file", "read_file", "") > score("read file", "read_file_lines", ""));
    }

    #[test]
    fn unrelated_or_empty_queries_score_zero() {
        assert_eq!(score("weather", "browser_click", "Clicks an element."), 0.0);
        assert_eq!(score("  ", "browser_click", "Clicks an element."), 0.0);
        // Short words are not prefixes of everything.
        assert_eq!(score("a", "browser_click", "Clicks the element."), 0.0);
    }

    #[test]
    fn matching_is_case_insensitive() {
        assert_eq!(
            score("BROWSER", "browser_click", ""),
            score("browser", "Browser_Click", "")
        );
    }
}
