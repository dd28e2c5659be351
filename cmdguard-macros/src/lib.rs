//! Procedural macros for cmdguard's tool registry: `#[tool]` turns an ordinary function into a
//! `cmdguard::tool::Tool`. This crate only generates code; the generated code calls the runtime
//! in `cmdguard::tool` and never decides anything itself.
//!
//! Use the macro through its re-export, `cmdguard::tool::tool`; its documentation is there.

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as TokenStream2};
use quote::{format_ident, quote, quote_spanned};
use syn::ext::IdentExt;
use syn::meta::ParseNestedMeta;
use syn::parse::Parser;
use syn::spanned::Spanned;
use syn::{
    Attribute, Expr, ExprLit, FnArg, GenericArgument, ItemFn, Lit, LitStr, Meta, Pat,
    PathArguments, ReturnType, Type, parse_macro_input,
};

/// Derives a `cmdguard::tool::Tool` from a function; see `cmdguard::tool::tool` for the full
/// documentation and examples.
///
/// The function is kept as it is; next to it the macro generates `fn <name>_tool() -> Tool<C>`
/// with the function's visibility.
#[proc_macro_attribute]
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut options = ToolOptions::default();
    let parser = syn::meta::parser(|meta| options.parse(&meta));
    if let Err(err) = parser.parse(attr) {
        return err.to_compile_error().into();
    }
    let function = parse_macro_input!(item as ItemFn);
    match expand(options, function) {
        Ok(tokens) => tokens.into(),
        Err(err) => err.to_compile_error().into(),
    }
}

/// The adapters a `native(…)` definition can be given for (`cmdguard::tool::Adapter::key`).
const ADAPTER_KEYS: [&str; 2] = ["openai", "anthropic"];

/// The keys of `#[tool(…)]` on the function.
#[derive(Default)]
struct ToolOptions {
    name: Option<LitStr>,
    required_capabilities: Vec<LitStr>,
    override_existing: bool,
    idempotent: bool,
    labels: Vec<LitStr>,
    deferred: bool,
    emits_progress: bool,
    output_schema: bool,
    native: Vec<(String, Expr)>,
}

/// How a parameter that the model may leave out gets its value.
enum ParamDefault {
    /// `#[tool(default = expr)]` or `#[default = expr]`.
    Expr(Box<Expr>),
    /// `#[tool(default)]` or `#[default]`: the type's `Default`.
    TypeDefault,
}

/// One function parameter that becomes a schema property.
struct ModelParam {
    ident: syn::Ident,
    /// The type the argument is deserialised into: the parameter's own type, or the owned form
    /// of a borrowed one (`String` for `&str`).
    owned: Type,
    doc: String,
    default: Option<ParamDefault>,
}

/// How a deserialised argument reaches the function.
enum Pass {
    /// As it is.
    Owned,
    /// Borrowed: `&value` (for `&str`, `&[T]`, `&Path`, `&T`).
    Borrowed,
    /// `value.as_deref()` (for `Option<&str>`, `Option<&[T]>`, `Option<&Path>`).
    OptionDeref,
    /// `value.as_ref()` (for `Option<&T>`).
    OptionRef,
}

/// What `#[tool(…)]`, `#[default]` and doc comments say about one parameter.
#[derive(Default)]
struct ParamAttrs {
    default: Option<ParamDefault>,
    /// `#[tool(context)]`: this parameter receives the `ToolCallContext` (needed when its type is
    /// an alias the macro cannot recognise by name).
    context: bool,
}

/// How the function receives its `ToolCallContext`, if it does.
enum ContextParam {
    ByValue,
    ByRef,
}

impl ToolOptions {
    fn parse(&mut self, meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
        let key = meta
            .path
            .get_ident()
            .map(|ident| ident.unraw().to_string())
            .unwrap_or_default();
        match key.as_str() {
            "name" => self.name = Some(meta.value()?.parse()?),
            "required_capabilities" => self.required_capabilities = string_list(meta)?,
            "labels" => self.labels = string_list(meta)?,
            "override" => self.override_existing = true,
            "idempotent" => self.idempotent = true,
            "deferred" => self.deferred = true,
            "emits_progress" => self.emits_progress = true,
            "output_schema" => self.output_schema = true,
            "native" => meta.parse_nested_meta(|adapter| {
                let key = adapter
                    .path
                    .get_ident()
                    .map(|ident| ident.unraw().to_string());
                let Some(key) = key else {
                    return Err(adapter.error("expected an adapter name such as `openai`"));
                };
                if !ADAPTER_KEYS.contains(&key.as_str()) {
                    return Err(adapter.error(format!(
                        "unknown native adapter `{key}`; expected one of {}",
                        ADAPTER_KEYS.join(", ")
                    )));
                }
                self.native.push((key, adapter.value()?.parse()?));
                Ok(())
            })?,
            _ => {
                return Err(meta.error(
                    "unknown #[tool] key; expected one of name, required_capabilities, labels, \
                     override, idempotent, deferred, emits_progress, output_schema, native",
                ));
            }
        }
        Ok(())
    }
}

/// `key = "a"` or `key = ["a", "b"]`.
fn string_list(meta: &ParseNestedMeta<'_>) -> syn::Result<Vec<LitStr>> {
    let value: Expr = meta.value()?.parse()?;
    let items = match value {
        Expr::Array(array) => array.elems.into_iter().collect(),
        single => vec![single],
    };
    items
        .into_iter()
        .map(|item| match item {
            Expr::Lit(ExprLit {
                lit: Lit::Str(text),
                ..
            }) => Ok(text),
            other => Err(syn::Error::new_spanned(other, "expected a string literal")),
        })
        .collect()
}

fn expand(options: ToolOptions, mut function: ItemFn) -> syn::Result<TokenStream2> {
    let signature = &function.sig;
    if !signature.generics.params.is_empty() || signature.generics.where_clause.is_some() {
        return Err(syn::Error::new_spanned(
            &signature.generics,
            "#[tool] functions cannot be generic; wrap a concrete instance or use Tool::builder",
        ));
    }
    let fn_ident = signature.ident.clone();
    let tool_name = options
        .name
        .clone()
        .unwrap_or_else(|| LitStr::new(&fn_ident.unraw().to_string(), fn_ident.span()));
    let description = doc_text(&function.attrs);

    let mut params = Vec::new();
    let mut call_args = Vec::new();
    let mut context: Option<TokenStream2> = None;
    for input in &mut function.sig.inputs {
        let FnArg::Typed(typed) = input else {
            return Err(syn::Error::new_spanned(
                input,
                "#[tool] cannot be used on methods; use Tool::builder with a closure instead",
            ));
        };
        let Pat::Ident(pat) = typed.pat.as_ref() else {
            return Err(syn::Error::new_spanned(
                &typed.pat,
                "#[tool] parameters must be plain names",
            ));
        };
        let ident = pat.ident.clone();
        let doc = doc_text(&typed.attrs);
        let attrs = take_param_attrs(&mut typed.attrs)?;
        if let Some((value_type, how)) = context_param(&typed.ty, attrs.context)? {
            if context.is_some() {
                return Err(syn::Error::new_spanned(
                    &typed.ty,
                    "only one ToolCallContext parameter",
                ));
            }
            call_args.push(match how {
                ContextParam::ByValue => quote!(__ctx),
                ContextParam::ByRef => quote!(&__ctx),
            });
            context = Some(value_type);
            continue;
        }
        // Arguments are bound to names of their own, never to the parameter's name: a parameter
        // named like its function (`fn query(query: String)`) would otherwise shadow the function.
        let binding = format_ident!("__tool_arg_{}", params.len());
        let (owned, pass) = owned_type(&typed.ty, &ident)?;
        call_args.push(match pass {
            Pass::Owned => quote!(#binding),
            Pass::Borrowed => quote!(&#binding),
            Pass::OptionDeref => quote!(#binding.as_deref()),
            Pass::OptionRef => quote!(#binding.as_ref()),
        });
        params.push(ModelParam {
            ident,
            owned,
            doc,
            default: attrs.default,
        });
    }

    let context_type = context.unwrap_or_else(|| quote!(()));

    // Checked first, so that a type that cannot be a parameter (an unmarked context alias) gets
    // a message that says what to do.
    let parameter_checks = params.iter().map(|param| {
        let ty = &param.owned;
        quote_spanned!(ty.span()=> ::cmdguard::tool::__private::parameter::<#ty>();)
    });
    let declarations = params.iter().map(|param| {
        let name = param.ident.unraw().to_string();
        let (ty, doc) = (&param.owned, &param.doc);
        match &param.default {
            None => quote!(.param::<#ty>(#name, #doc)),
            // Literal forms a person writes (`"hello"` for a `String`, `vec!["a"]` for a
            // `Vec<String>`) go through serde, which converts them the way the model's JSON is.
            Some(ParamDefault::Expr(expr)) if is_literal_form(expr) => {
                quote!(.param_default_from::<#ty>(#name, #doc, #expr))
            }
            Some(ParamDefault::Expr(expr)) => quote!(.param_default::<#ty>(#name, #doc, #expr)),
            Some(ParamDefault::TypeDefault) => quote!(
                .param_default::<#ty>(#name, #doc, <#ty as ::core::default::Default>::default())
            ),
        }
    });
    let takes = params.iter().enumerate().map(|(at, param)| {
        let name = param.ident.unraw().to_string();
        let binding = format_ident!("__tool_arg_{}", at);
        let ty = &param.owned;
        quote!(let #binding: #ty = __args.take::<#ty>(#name)?;)
    });
    let rebind = if params.is_empty() {
        quote!()
    } else {
        quote!(let mut __args = __args;)
    };

    let call = if function.sig.asyncness.is_some() {
        quote!(#fn_ident(#(#call_args),*).await)
    } else {
        quote!(#fn_ident(#(#call_args),*))
    };
    // Whether the function returns a `Result` is decided by the type checker, not by the
    // spelling of the return type, so aliases (`type Outcome = Result<…>`) count.
    let convert = quote!({
        #[allow(unused_imports)]
        use ::cmdguard::tool::__private::{ResultOutcome as _, ValueOutcome as _};
        (&mut ::cmdguard::tool::__private::Returned::new(#call)).outcome().finish()
    });
    let closure_params = quote!(
        __args: ::cmdguard::tool::Arguments,
        __ctx: ::cmdguard::tool::ToolCallContext<#context_type>
    );
    let handler = if function.sig.asyncness.is_some() {
        quote!(.async_handler(|#closure_params| async move {
            #rebind
            #(#takes)*
            #convert
        }))
    } else {
        quote!(.handler(|#closure_params| {
            #rebind
            #(#takes)*
            #convert
        }))
    };

    let attr_calls = attribute_calls(&options, &function.sig.output);
    let vis = &function.vis;
    let tool_fn = format_ident!("{}_tool", fn_ident.unraw());
    let doc = format!(
        "Makes the tool `{}` from [`{}`] (generated by `#[tool]`).",
        tool_name.value(),
        fn_ident.unraw()
    );
    Ok(quote! {
        #function

        #[doc = #doc]
        #vis fn #tool_fn() -> ::cmdguard::tool::Tool<#context_type> {
            #(#parameter_checks)*
            ::cmdguard::tool::Tool::<#context_type>::builder(#tool_name)
                .description(#description)
                #(#declarations)*
                #attr_calls
                #handler
        }
    })
}

fn attribute_calls(options: &ToolOptions, output: &ReturnType) -> TokenStream2 {
    let mut calls = TokenStream2::new();
    for capability in &options.required_capabilities {
        calls.extend(quote!(.required_capability(#capability)));
    }
    for label in &options.labels {
        calls.extend(quote!(.label(#label)));
    }
    for (flag, call) in [
        (options.override_existing, quote!(.override_existing())),
        (options.idempotent, quote!(.idempotent())),
        (options.deferred, quote!(.deferred())),
        (options.emits_progress, quote!(.emits_progress())),
    ] {
        if flag {
            calls.extend(call);
        }
    }
    for (adapter, definition) in &options.native {
        calls.extend(quote!(.native(#adapter, #definition)));
    }
    if options.output_schema {
        let output_type = match output {
            ReturnType::Default => quote!(()),
            ReturnType::Type(_, ty) => quote!(#ty),
        };
        // The schema of the success type of a `Result` (aliases included), else of the type.
        calls.extend(quote!(.output_schema({
            #[allow(unused_imports)]
            use ::cmdguard::tool::__private::{ResultSchema as _, ValueSchema as _};
            (&mut ::cmdguard::tool::__private::Returned::<#output_type>::probe()).schema()
        })));
    }
    calls
}

/// The doc comment of an item or parameter, verbatim except that the one space rustdoc puts
/// after `///` is removed from each line and blank lines at either end are dropped.
fn doc_text(attrs: &[Attribute]) -> String {
    let mut lines = Vec::new();
    for attr in attrs {
        let Meta::NameValue(pair) = &attr.meta else {
            continue;
        };
        if !pair.path.is_ident("doc") {
            continue;
        }
        let Expr::Lit(ExprLit {
            lit: Lit::Str(text),
            ..
        }) = &pair.value
        else {
            continue;
        };
        for line in text.value().split('\n') {
            lines.push(line.strip_prefix(' ').unwrap_or(line).trim_end().to_owned());
        }
    }
    lines.join("\n").trim_matches('\n').to_owned()
}

/// Removes the attributes only `#[tool]` understands from a parameter (docs, `#[tool(default)]`,
/// `#[tool(context)]`, `#[default]`) and returns what they say. The compiler rejects these
/// attributes on parameters, so none may survive.
fn take_param_attrs(attrs: &mut Vec<Attribute>) -> syn::Result<ParamAttrs> {
    let mut found = ParamAttrs::default();
    let mut kept = Vec::new();
    for attr in attrs.drain(..) {
        if attr.path().is_ident("doc") {
            continue;
        }
        if attr.path().is_ident("default") {
            found.default = Some(match &attr.meta {
                Meta::Path(_) => ParamDefault::TypeDefault,
                Meta::NameValue(pair) => ParamDefault::Expr(Box::new(pair.value.clone())),
                Meta::List(list) => ParamDefault::Expr(Box::new(list.parse_args()?)),
            });
            continue;
        }
        if attr.path().is_ident("tool") {
            attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("context") {
                    found.context = true;
                    return Ok(());
                }
                if !meta.path.is_ident("default") {
                    return Err(
                        meta.error("the #[tool] keys on a parameter are `default` and `context`")
                    );
                }
                found.default = Some(if meta.input.peek(syn::Token![=]) {
                    ParamDefault::Expr(Box::new(meta.value()?.parse()?))
                } else {
                    ParamDefault::TypeDefault
                });
                Ok(())
            })?;
            continue;
        }
        kept.push(attr);
    }
    *attrs = kept;
    Ok(found)
}

/// Whether a default is written in a literal form that serde converts: a string literal, an
/// array or `vec![…]`.
fn is_literal_form(expr: &Expr) -> bool {
    match expr {
        Expr::Lit(ExprLit {
            lit: Lit::Str(_), ..
        })
        | Expr::Array(_) => true,
        Expr::Macro(mac) => mac.mac.path.is_ident("vec"),
        _ => false,
    }
}

/// The owned type an argument is deserialised into and how it is passed on: tool arguments
/// arrive as JSON and are deserialised into owned values, so `&str` is read as a `String` and
/// lent to the function. A borrow anywhere else in the type cannot be served and is an error
/// that says what to write instead.
fn owned_type(ty: &Type, ident: &syn::Ident) -> syn::Result<(Type, Pass)> {
    if let Type::Reference(reference) = ty {
        if reference.mutability.is_some() {
            return Err(syn::Error::new_spanned(
                ty,
                format!("#[tool] parameter `{ident}` cannot be `&mut`: take the value itself"),
            ));
        }
        let owned = owned_form(&reference.elem);
        refuse_borrows(&owned, ident)?;
        return Ok((owned, Pass::Borrowed));
    }
    if let Some(inner) = option_inner(ty)
        && let Type::Reference(reference) = inner
        && reference.mutability.is_none()
    {
        let owned = owned_form(&reference.elem);
        refuse_borrows(&owned, ident)?;
        let pass = if unsized_form(&reference.elem) {
            Pass::OptionDeref
        } else {
            Pass::OptionRef
        };
        return Ok((syn::parse_quote!(::core::option::Option<#owned>), pass));
    }
    refuse_borrows(ty, ident)?;
    Ok((ty.clone(), Pass::Owned))
}

/// `T` of `Option<T>`, by the type's last path segment.
fn option_inner(ty: &Type) -> Option<&Type> {
    let Type::Path(path) = ty else {
        return None;
    };
    let last = path.path.segments.last()?;
    if last.ident != "Option" {
        return None;
    }
    let PathArguments::AngleBracketed(arguments) = &last.arguments else {
        return None;
    };
    match arguments.args.first() {
        Some(GenericArgument::Type(inner)) if arguments.args.len() == 1 => Some(inner),
        _ => None,
    }
}

/// Whether a borrowed type is one of the unsized forms that `as_deref` lends: `str`, `[T]`,
/// `Path`.
fn unsized_form(ty: &Type) -> bool {
    match ty {
        Type::Slice(_) => true,
        Type::Path(path) => path
            .path
            .segments
            .last()
            .is_some_and(|last| last.ident == "str" || last.ident == "Path"),
        _ => false,
    }
}

/// The owned form of a borrowed type: `String` for `str`, `Vec<T>` for `[T]`, `PathBuf` for
/// `Path`, the type itself otherwise.
fn owned_form(ty: &Type) -> Type {
    match ty {
        Type::Slice(slice) => {
            let item = &slice.elem;
            syn::parse_quote!(::std::vec::Vec<#item>)
        }
        Type::Path(path) if path.path.segments.last().is_some_and(|l| l.ident == "str") => {
            syn::parse_quote!(::std::string::String)
        }
        Type::Path(path) if path.path.segments.last().is_some_and(|l| l.ident == "Path") => {
            syn::parse_quote!(::std::path::PathBuf)
        }
        other => other.clone(),
    }
}

/// Fails when `ty` still borrows (a reference or a lifetime inside it, like `Vec<&str>`).
fn refuse_borrows(ty: &Type, ident: &syn::Ident) -> syn::Result<()> {
    let mut finder = BorrowFinder(false);
    syn::visit::visit_type(&mut finder, ty);
    if finder.0 {
        return Err(syn::Error::new_spanned(
            ty,
            format!(
                "#[tool] parameter `{ident}` borrows inside its type: arguments are deserialised \
                 from JSON into owned values, so write an owned type (`String` for `&str`, \
                 `Vec<String>` for `Vec<&str>`)"
            ),
        ));
    }
    Ok(())
}

/// Finds references and lifetimes in a type.
struct BorrowFinder(bool);

impl<'ast> syn::visit::Visit<'ast> for BorrowFinder {
    fn visit_type_reference(&mut self, _: &'ast syn::TypeReference) {
        self.0 = true;
    }

    fn visit_lifetime(&mut self, _: &'ast syn::Lifetime) {
        self.0 = true;
    }
}

/// `ToolCallContext<X>` or `&ToolCallContext<X>`: the value type `X` and how it is passed. A
/// parameter marked `#[tool(context)]` is the context whatever its type is spelled like (an
/// alias); its value type is then read through the `ContextParam` trait.
fn context_param(ty: &Type, marked: bool) -> syn::Result<Option<(TokenStream2, ContextParam)>> {
    let (path_type, how) = match ty {
        Type::Reference(reference) => (reference.elem.as_ref(), ContextParam::ByRef),
        other => (other, ContextParam::ByValue),
    };
    let last = match path_type {
        Type::Path(path) => path.path.segments.last(),
        _ => None,
    };
    let Some(last) = last.filter(|last| last.ident == "ToolCallContext") else {
        if marked {
            let value = quote!(<#path_type as ::cmdguard::tool::__private::ContextParam>::Value);
            return Ok(Some((value, how)));
        }
        return Ok(None);
    };
    let PathArguments::AngleBracketed(arguments) = &last.arguments else {
        return Err(syn::Error::new_spanned(
            ty,
            "write the context value type: ToolCallContext<T>",
        ));
    };
    match arguments.args.first() {
        Some(GenericArgument::Type(value_type)) => Ok(Some((quote!(#value_type), how))),
        _ => Err(syn::Error::new(
            Span::call_site(),
            "ToolCallContext takes one type argument",
        )),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests unwrap to fail loudly")]

    use super::*;

    /// Expands `function` with `#[tool(options)]` and returns the error message, if any.
    fn expand_error(options: TokenStream2, function: TokenStream2) -> Option<String> {
        let mut parsed = ToolOptions::default();
        let parser = syn::meta::parser(|meta| parsed.parse(&meta));
        if let Err(err) = parser.parse2(options) {
            return Some(err.to_string());
        }
        expand(parsed, syn::parse2(function).unwrap())
            .err()
            .map(|err| err.to_string())
    }

    #[test]
    fn unsupported_functions_are_rejected_with_a_reason() {
        let table = [
            (
                quote!(),
                quote!(
                    fn f<T>(x: T) {}
                ),
                "#[tool] functions cannot be generic",
            ),
            (
                quote!(),
                quote!(
                    fn f(&self) {}
                ),
                "#[tool] cannot be used on methods",
            ),
            (
                quote!(),
                quote!(
                    fn f((a, b): (i32, i32)) {}
                ),
                "#[tool] parameters must be plain names",
            ),
            (
                quote!(unknown),
                quote!(
                    fn f() {}
                ),
                "unknown #[tool] key",
            ),
            (
                quote!(),
                quote!(
                    fn f(#[tool(rename = "x")] a: i32) {}
                ),
                "the #[tool] keys on a parameter",
            ),
            (
                quote!(),
                quote!(
                    fn f(a: ToolCallContext<()>, b: &ToolCallContext<()>) {}
                ),
                "only one ToolCallContext parameter",
            ),
            (
                quote!(),
                quote!(
                    fn f(a: ToolCallContext) {}
                ),
                "write the context value type",
            ),
        ];
        for (options, function, expected) in table {
            let message = expand_error(options, function.clone()).unwrap_or_default();
            assert!(message.starts_with(expected), "{function}: got {message:?}");
        }
    }

    #[test]
    fn supported_functions_expand() {
        let function = quote!(
            /// Docs.
            async fn f(
                /// A.
                #[tool(default = 1)]
                a: i32,
                #[default] b: Vec<String>,
                ctx: &ToolCallContext<u8>,
            ) -> std::io::Result<()> {
                Ok(())
            }
        );
        let options = quote!(
            name = "g",
            labels = ["x"],
            native(openai = 1),
            override,
            output_schema
        );
        assert_eq!(expand_error(options, function), None);
    }

    #[test]
    fn doc_text_drops_one_leading_space_and_blank_edges() {
        let function: ItemFn = syn::parse2(quote!(
            ///
            /// Summary.
            ///
            ///     indented
            #[doc = "  two spaces"]
            ///
            fn f() {}
        ))
        .unwrap();
        assert_eq!(
            doc_text(&function.attrs),
            "Summary.\n\n    indented\n two spaces"
        );
    }
}
