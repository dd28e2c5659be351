//! Procedural macros for cmdguard's tool registry.
use proc_macro::TokenStream;

/// Placeholder while the runtime compiles.
#[proc_macro_attribute]
pub fn tool(_attr: TokenStream, item: TokenStream) -> TokenStream {
    item
}
