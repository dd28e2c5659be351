//! Procedural macros for cmdguard's tool registry: `#[tool]` turns an ordinary function into a
//! `cmdguard::tool::Tool`. This crate only generates code; the generated code calls the runtime
//! in `cmdguard::tool` and never decides anything itself.
//!
//! Use the macro through its re-export, `cmdguard::tool::tool`; its documentation is there.

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as TokenStream2};
use quote::{format_ident, quote};
use syn::ext::IdentExt;
use syn::meta::ParseNestedMeta;
use syn::parse::Parser;
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
    Expr(Expr),
    /// `#[tool(default)]` or `#[default]`: the type's `Default`.
    TypeDefault,
}

/// One function parameter that becomes a schema property.
struct ModelParam {
    ident: syn::Ident,
    ty: Type,
    doc: String,
    default: Option<ParamDefault>,
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
    let mut context: Option<(Type, ContextParam)> = None;
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
        let default = take_param_attrs(&mut typed.attrs)?;
        if let Some((value_type, how)) = context_param(&typed.ty)? {
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
            context = Some((value_type, how));
            continue;
        }
        call_args.push(quote!(#ident));
        params.push(ModelParam {
            ident,
            ty: (*typed.ty).clone(),
            doc,
            default,
        });
    }

    let (generics, context_type) = match &context {
        Some((value_type, _)) => (quote!(), quote!(#value_type)),
        None => (
            quote!(<__C: ::core::marker::Send + ::core::marker::Sync + 'static>),
            quote!(__C),
        ),
    };

    let declarations = params.iter().map(|param| {
        let name = param.ident.unraw().to_string();
        let (ty, doc) = (&param.ty, &param.doc);
        match &param.default {
            None => quote!(.param::<#ty>(#name, #doc)),
            Some(ParamDefault::Expr(expr)) => quote!(.param_default::<#ty>(#name, #doc, #expr)),
            Some(ParamDefault::TypeDefault) => quote!(
                .param_default::<#ty>(#name, #doc, <#ty as ::core::default::Default>::default())
            ),
        }
    });
    let takes = params.iter().map(|param| {
        let name = param.ident.unraw().to_string();
        let (ident, ty) = (&param.ident, &param.ty);
        quote!(let #ident: #ty = __args.take::<#ty>(#name)?;)
    });
    let rebind = if params.is_empty() {
        quote!()
    } else {
        quote!(let mut __args = __args;)
    };

    let returns_result = match &function.sig.output {
        ReturnType::Default => false,
        ReturnType::Type(_, ty) => is_result(ty),
    };
    let call = if function.sig.asyncness.is_some() {
        quote!(#fn_ident(#(#call_args),*).await)
    } else {
        quote!(#fn_ident(#(#call_args),*))
    };
    let convert = if returns_result {
        quote!(::cmdguard::tool::__private::result(#call))
    } else {
        quote!(::cmdguard::tool::__private::value(#call))
    };
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
        #vis fn #tool_fn #generics() -> ::cmdguard::tool::Tool<#context_type> {
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
            ReturnType::Type(_, ty) if is_result(ty) => {
                quote!(<#ty as ::cmdguard::tool::__private::Fallible>::Ok)
            }
            ReturnType::Type(_, ty) => quote!(#ty),
        };
        calls.extend(quote!(.output_schema_of::<#output_type>()));
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
/// `#[default]`) and returns its default, if it has one. The compiler rejects these attributes
/// on parameters, so none may survive.
fn take_param_attrs(attrs: &mut Vec<Attribute>) -> syn::Result<Option<ParamDefault>> {
    let mut default = None;
    let mut kept = Vec::new();
    for attr in attrs.drain(..) {
        if attr.path().is_ident("doc") {
            continue;
        }
        if attr.path().is_ident("default") {
            default = Some(match &attr.meta {
                Meta::Path(_) => ParamDefault::TypeDefault,
                Meta::NameValue(pair) => ParamDefault::Expr(pair.value.clone()),
                Meta::List(list) => ParamDefault::Expr(list.parse_args()?),
            });
            continue;
        }
        if attr.path().is_ident("tool") {
            attr.parse_nested_meta(|meta| {
                if !meta.path.is_ident("default") {
                    return Err(meta.error("the only #[tool] key on a parameter is `default`"));
                }
                default = Some(if meta.input.peek(syn::Token![=]) {
                    ParamDefault::Expr(meta.value()?.parse()?)
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
    Ok(default)
}

/// `ToolCallContext<X>` or `&ToolCallContext<X>`: the value type `X` and how it is passed.
fn context_param(ty: &Type) -> syn::Result<Option<(Type, ContextParam)>> {
    let (path_type, how) = match ty {
        Type::Reference(reference) => (reference.elem.as_ref(), ContextParam::ByRef),
        other => (other, ContextParam::ByValue),
    };
    let Type::Path(path) = path_type else {
        return Ok(None);
    };
    let Some(last) = path.path.segments.last() else {
        return Ok(None);
    };
    if last.ident != "ToolCallContext" {
        return Ok(None);
    }
    let PathArguments::AngleBracketed(arguments) = &last.arguments else {
        return Err(syn::Error::new_spanned(
            ty,
            "write the context value type: ToolCallContext<T>",
        ));
    };
    match arguments.args.first() {
        Some(GenericArgument::Type(value_type)) => Ok(Some((value_type.clone(), how))),
        _ => Err(syn::Error::new(
            Span::call_site(),
            "ToolCallContext takes one type argument",
        )),
    }
}

/// Whether a return type is a `Result` (by its last path segment, so `io::Result<T>` counts).
fn is_result(ty: &Type) -> bool {
    match ty {
        Type::Path(path) => path
            .path
            .segments
            .last()
            .is_some_and(|last| last.ident == "Result"),
        _ => false,
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
                "the only #[tool] key on a",
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

    #[test]
    fn results_are_recognised_by_their_last_segment() {
        let table = [
            (quote!(Result<u8, E>), true),
            (quote!(std::io::Result<u8>), true),
            (quote!(Option<u8>), false),
            (quote!((u8, u8)), false),
        ];
        for (ty, expected) in table {
            assert_eq!(
                is_result(&syn::parse2(ty.clone()).unwrap()),
                expected,
                "{ty}"
            );
        }
    }
}
