//! allowlist/embedded: the embedded allowlist and packs in the form `build.rs` compiled them
//! to — each file's TOML document as static values with their byte spans, and its line starts —
//! and a serde deserializer over that form, so that start-up deserialises the same `Raw*` types
//! (`allowlist/toml.rs`) a user's file goes through, without parsing any text.
//!
//! It holds no rules of its own and interprets nothing: what a value means is the `Raw*`
//! types' business, exactly as for a file parsed at run time.

use std::fmt;

use serde::de::value::BorrowedStrDeserializer;
use serde::de::{self, DeserializeSeed, IntoDeserializer, MapAccess, SeqAccess, Visitor};
use serde_spanned::de::{SpannedDeserializer, is_spanned};

/// One embedded file, compiled: its document and where its lines start.
#[derive(Debug)]
pub(crate) struct Compiled {
    /// The length of the text it was compiled from (a test checks it belongs to that text).
    #[cfg_attr(
        not(test),
        allow(dead_code, reason = "read by the test of the compiled form")
    )]
    pub text_len: usize,
    /// The byte offset of each line's start (the first is 0).
    pub lines: &'static [usize],
    /// The document: a table.
    pub root: Item,
}

/// A value with its byte span in the file.
#[derive(Debug)]
pub(crate) struct Item {
    pub start: u32,
    pub end: u32,
    pub value: Value,
}

/// A key of a table, its span, and its value.
#[derive(Debug)]
pub(crate) struct Field {
    pub key: Text,
    pub start: u32,
    pub end: u32,
    pub item: Item,
}

/// A string of the blob `STRS`: its byte offset and length.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Text {
    pub at: u32,
    pub len: u32,
}

/// The TOML values the embedded files use (`build.rs` refuses floats and datetimes). Arrays and
/// tables are runs of `ITEMS` and `FIELDS`: indices rather than slices, so that the statics hold
/// no pointer for the dynamic loader to relocate at every start.
#[derive(Debug)]
pub(crate) enum Value {
    Str(Text),
    Int(i64),
    Bool(bool),
    Array { first: u32, len: u32 },
    Table { first: u32, len: u32 },
}

include!(concat!(env!("OUT_DIR"), "/embedded.rs"));

/// The compiled form of the embedded `allowlist.toml`.
pub(crate) fn allowlist() -> &'static Compiled {
    &ALLOWLIST
}

impl Item {
    /// The value of `key` when this is a table holding it.
    pub(crate) fn field(&self, key: &str) -> Option<&'static Item> {
        match self.value {
            Value::Table { first, len } => run(&FIELDS, first, len)
                .iter()
                .find(|f| f.key.get() == key)
                .map(|f| &f.item),
            Value::Str(_) | Value::Int(_) | Value::Bool(_) | Value::Array { .. } => None,
        }
    }

    /// The elements when this is an array.
    pub(crate) fn elements(&self) -> &'static [Item] {
        match self.value {
            Value::Array { first, len } => run(&ITEMS, first, len),
            Value::Str(_) | Value::Int(_) | Value::Bool(_) | Value::Table { .. } => &[],
        }
    }

    /// The string when this is one.
    pub(crate) fn as_str(&self) -> Option<&'static str> {
        match self.value {
            Value::Str(s) => Some(s.get()),
            Value::Int(_) | Value::Bool(_) | Value::Array { .. } | Value::Table { .. } => None,
        }
    }
}

/// Why a compiled document does not fit the type asked for; only a mismatch between
/// `build.rs`'s view of the `Raw*` types and the library's can cause it, which the test suite
/// rules out.
#[derive(Debug)]
pub(crate) struct Error(String);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl de::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Error {
        Error(msg.to_string())
    }
}

impl Item {
    fn span(&self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
}

impl Text {
    /// The string; empty if the offsets were out of the blob, which the compiled-form test
    /// rules out.
    fn get(self) -> &'static str {
        let at = self.at as usize;
        STRS.get(at..at + self.len as usize).unwrap_or_default()
    }
}

/// The run `first..first + len` of `table`; empty if it were out of range, which the
/// compiled-form test rules out.
fn run<T>(table: &'static [T], first: u32, len: u32) -> &'static [T] {
    let first = first as usize;
    table.get(first..first + len as usize).unwrap_or_default()
}

impl<'de> IntoDeserializer<'de, Error> for &'static Item {
    type Deserializer = Node;

    fn into_deserializer(self) -> Node {
        Node::whole(self)
    }
}

impl<'de> IntoDeserializer<'de, Error> for Node {
    type Deserializer = Node;

    fn into_deserializer(self) -> Node {
        self
    }
}

/// The keys of the `match` / `not_match` examples and their `why`, which only
/// [`AllowlistBuilder::build`](super::AllowlistBuilder) runs: `Allowlist::default` reads the
/// embedded files without them, as if they were not written, rather than allocate a string
/// for each of their thousand-odd examples. No other table of the format has a key of these
/// names (`[severity]` keys are finding codes, `[git] safe_values` keys are git config keys,
/// which have a dot).
pub(crate) const EXAMPLE_KEYS: &[&str] = &["match", "not_match", "why"];

/// A value to deserialise, with keys left out: `once` in this table only, `everywhere` in it
/// and in every table below it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Node {
    /// The value.
    pub item: &'static Item,
    /// A key left out of this table alone.
    pub once: Option<&'static str>,
    /// Keys left out of this table and every one below it.
    pub everywhere: &'static [&'static str],
}

impl Node {
    /// All of `item`.
    pub(crate) fn whole(item: &'static Item) -> Node {
        Node {
            item,
            once: None,
            everywhere: &[],
        }
    }

    /// `item` without its examples ([`EXAMPLE_KEYS`]).
    pub(crate) fn without_examples(item: &'static Item) -> Node {
        Node {
            item,
            once: None,
            everywhere: EXAMPLE_KEYS,
        }
    }

    fn child(self, item: &'static Item) -> Node {
        Node {
            item,
            once: None,
            everywhere: self.everywhere,
        }
    }
}

impl<'de> de::Deserializer<'de> for &'static Item {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        Node::whole(self).deserialize_any(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        Node::whole(self).deserialize_option(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        Node::whole(self).deserialize_newtype_struct(name, visitor)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        Node::whole(self).deserialize_struct(name, fields, visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        Node::whole(self).deserialize_enum(name, variants, visitor)
    }

    serde::forward_to_deserialize_any! {
        bool u8 u16 u32 u64 u128 i8 i16 i32 i64 i128 f32 f64 char str string seq
        bytes byte_buf map unit ignored_any unit_struct tuple_struct tuple identifier
    }
}

impl<'de> de::Deserializer<'de> for Node {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.item.value {
            Value::Str(s) => visitor.visit_borrowed_str(s.get()),
            Value::Int(n) => visitor.visit_i64(n),
            Value::Bool(b) => visitor.visit_bool(b),
            Value::Array { first, len } => visitor.visit_seq(Items {
                items: run(&ITEMS, first, len).iter(),
                parent: self,
            }),
            Value::Table { first, len } => visitor.visit_map(Fields {
                fields: run(&FIELDS, first, len).iter(),
                value: None,
                parent: self,
            }),
        }
    }

    // A present value is `Some`: TOML has no null, a missing key is `None`.
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        if is_spanned(name) {
            return visitor.visit_map(SpannedDeserializer::<Node, Error>::new(
                self,
                self.item.span(),
            ));
        }
        self.deserialize_any(visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match &self.item.value {
            Value::Str(s) => visitor.visit_enum(BorrowedStrDeserializer::<Error>::new(s.get())),
            _ => Err(de::Error::custom("wanted a string")),
        }
    }

    serde::forward_to_deserialize_any! {
        bool u8 u16 u32 u64 u128 i8 i16 i32 i64 i128 f32 f64 char str string seq
        bytes byte_buf map unit ignored_any unit_struct tuple_struct tuple identifier
    }
}

/// The items of an array.
struct Items {
    items: std::slice::Iter<'static, Item>,
    parent: Node,
}

impl<'de> SeqAccess<'de> for Items {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        let parent = self.parent;
        self.items
            .next()
            .map(|item| seed.deserialize(parent.child(item)))
            .transpose()
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

/// The fields of a table, each key with its own span, less those `parent` leaves out.
struct Fields {
    fields: std::slice::Iter<'static, Field>,
    value: Option<&'static Item>,
    parent: Node,
}

impl<'de> MapAccess<'de> for Fields {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        let Node {
            once, everywhere, ..
        } = self.parent;
        let kept = |f: &&Field| {
            let key = f.key.get();
            once != Some(key) && !everywhere.contains(&key)
        };
        let Some(field) = self.fields.find(kept) else {
            return Ok(None);
        };
        self.value = Some(&field.item);
        seed.deserialize(Key(field)).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        match self.value.take() {
            Some(item) => seed.deserialize(self.parent.child(item)),
            None => Err(de::Error::custom("a value asked for before its key")),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        // With keys left out, the length is only an upper bound.
        let whole = self.parent.once.is_none() && self.parent.everywhere.is_empty();
        whole.then(|| self.fields.len())
    }
}

/// A table key: a string, or a `Spanned` one carrying the key's own span.
struct Key(&'static Field);

impl<'de> de::Deserializer<'de> for Key {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_borrowed_str(self.0.key.get())
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        if is_spanned(name) {
            let span = self.0.start as usize..self.0.end as usize;
            return visitor.visit_map(SpannedDeserializer::<&'static str, Error>::new(
                self.0.key.get(),
                span,
            ));
        }
        self.deserialize_any(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_enum(BorrowedStrDeserializer::<Error>::new(self.0.key.get()))
    }

    serde::forward_to_deserialize_any! {
        bool u8 u16 u32 u64 u128 i8 i16 i32 i64 i128 f32 f64 char str string seq
        bytes byte_buf map unit ignored_any unit_struct tuple_struct tuple identifier option
    }
}
