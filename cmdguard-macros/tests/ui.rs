//! Compile tests of `#[tool]` (issue 13): the forms a newcomer writes compile, and the forms that
//! cannot work fail with a message that says what to write instead. One `pass` file and one
//! `compile_fail` glob keep this to two trybuild builds.

#[test]
fn tool_macro_compiles_what_newcomers_write_and_explains_what_it_refuses() {
    let cases = trybuild::TestCases::new();
    cases.pass("tests/ui/pass/*.rs");
    cases.compile_fail("tests/ui/fail/*.rs");
}
