//! Options objects crossing from JS: one plain object per verb, read field by field here,
//! so a wrong value is a `DecodeError` naming the option (no serde in the module: a few
//! `Reflect.get` calls cost less wasm than a deserializer). Each verb's TS interface sits
//! beside its Rust reader in a `typescript_custom_section`, so the generated `.d.ts`
//! declares it.

use arrowsmith_core::{DecodeError, ErrorCode, Format};
use wasm_bindgen::convert::TryFromJsValue;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = Reflect, js_name = get)]
    fn reflect_get(target: &JsValue, key: &JsValue) -> JsValue;
    #[wasm_bindgen(js_namespace = Object, js_name = keys)]
    fn object_keys(target: &JsValue) -> JsValue;
}

/// A bad option value: `argument` (the call is wrong, not the bytes), no offset.
pub fn bad(format: Format, name: &str, wanted: &str, got: &str) -> DecodeError {
    DecodeError::new(
        format,
        0,
        ErrorCode::Argument,
        format!("option {name} must be {wanted}, not {got}"),
    )
}

/// The value of `name` in `table` (a string option's allowed values and their meaning).
pub fn pick<T: Copy>(
    format: Format,
    name: &str,
    value: &str,
    table: &[(&str, T)],
) -> Result<T, DecodeError> {
    match table.iter().position(|(k, _)| *k == value) {
        Some(i) => Ok(table[i].1),
        None => Err(unknown(
            format,
            name,
            value,
            &mut table.iter().map(|(k, _)| *k),
        )),
    }
}

/// The error for a string option that names none of its values (not generic: one copy of
/// the message code for every option).
fn unknown(
    format: Format,
    name: &str,
    value: &str,
    names: &mut dyn Iterator<Item = &str>,
) -> DecodeError {
    let mut wanted = String::from("one of ");
    for (i, k) in names.enumerate() {
        if i > 0 {
            wanted.push_str(", ");
        }
        wanted.push('\'');
        wanted.push_str(k);
        wanted.push('\'');
    }
    bad(format, name, &wanted, &format!("'{value}'"))
}

/// A whole number from 0 to 2^32-1.
pub fn count(format: Format, name: &str, v: f64) -> Result<u32, DecodeError> {
    if v.fract() == 0.0 && (0.0..=u32::MAX as f64).contains(&v) {
        Ok(v as u32)
    } else {
        Err(bad(
            format,
            name,
            "a whole number from 0 to 2^32-1",
            &number(v),
        ))
    }
}

/// One options object; `undefined` or `null` is an empty one.
pub struct Fields {
    format: Format,
    obj: JsValue,
}

impl Fields {
    /// The object `obj` as the options of a `format` call.
    pub fn new(format: Format, obj: JsValue) -> Result<Fields, DecodeError> {
        if !obj.is_null_or_undefined() && !obj.is_object() {
            return Err(bad(format, "object", "an object", &kind(&obj)));
        }
        Ok(Fields { format, obj })
    }

    /// The error for option `name` that is not `wanted`.
    fn wrong(&self, name: &str, wanted: &str, got: &JsValue) -> DecodeError {
        bad(self.format, name, wanted, &kind(got))
    }

    /// Field `name`, `None` when absent (`undefined` or `null`).
    pub fn get(&self, name: &str) -> Option<JsValue> {
        if self.obj.is_null_or_undefined() {
            return None;
        }
        let v = reflect_get(&self.obj, &JsValue::from_str(name));
        (!v.is_null_or_undefined()).then_some(v)
    }

    /// A string option.
    pub fn string(&self, name: &str) -> Result<Option<String>, DecodeError> {
        self.get(name)
            .map(|v| {
                v.as_string()
                    .ok_or_else(|| self.wrong(name, "a string", &v))
            })
            .transpose()
    }

    /// A string option, one of `table`'s names.
    pub fn choice<T: Copy>(
        &self,
        name: &str,
        table: &[(&str, T)],
    ) -> Result<Option<T>, DecodeError> {
        self.string(name)?
            .map(|s| pick(self.format, name, &s, table))
            .transpose()
    }

    /// A boolean option.
    pub fn bool(&self, name: &str) -> Result<Option<bool>, DecodeError> {
        self.get(name)
            .map(|v| {
                v.as_bool()
                    .ok_or_else(|| self.wrong(name, "true or false", &v))
            })
            .transpose()
    }

    /// A number option.
    pub fn number(&self, name: &str) -> Result<Option<f64>, DecodeError> {
        self.get(name)
            .map(|v| v.as_f64().ok_or_else(|| self.wrong(name, "a number", &v)))
            .transpose()
    }

    /// A whole-number option from 0 to 2^32-1.
    pub fn count(&self, name: &str) -> Result<Option<u32>, DecodeError> {
        self.number(name)?
            .map(|v| count(self.format, name, v))
            .transpose()
    }

    /// A whole-number option from 0 to 2^53 (a row index or count, a number of bytes).
    pub fn whole(&self, name: &str) -> Result<Option<u64>, DecodeError> {
        self.number(name)?
            .map(|v| {
                if v.fract() == 0.0 && (0.0..=9007199254740992.0).contains(&v) {
                    Ok(v as u64)
                } else {
                    Err(bad(
                        self.format,
                        name,
                        "a whole number from 0 to 2^53",
                        &number(v),
                    ))
                }
            })
            .transpose()
    }

    /// An array of numbers.
    pub fn numbers(&self, name: &str) -> Result<Option<Vec<f64>>, DecodeError> {
        self.get(name)
            .map(|v| {
                let wrong = || self.wrong(name, "an array of numbers", &v);
                let len = reflect_get(&v, &JsValue::from_str("length"))
                    .as_f64()
                    .filter(|_| v.is_object())
                    .ok_or_else(wrong)?;
                (0..len as u32)
                    .map(|i| {
                        reflect_get(&v, &JsValue::from(i))
                            .as_f64()
                            .ok_or_else(wrong)
                    })
                    .collect()
            })
            .transpose()
    }

    /// A 64-bit integer option: a bigint, or a number that is a safe integer.
    pub fn int64(&self, name: &str) -> Result<Option<i64>, DecodeError> {
        self.get(name)
            .map(|v| {
                let n = v
                    .as_f64()
                    .filter(|n| n.fract() == 0.0 && n.abs() <= 9007199254740991.0);
                n.map(|n| n as i64)
                    .or_else(|| i64::try_from_js_value_ref(&v))
                    .ok_or_else(|| self.wrong(name, "a bigint (64-bit integer)", &v))
            })
            .transpose()
    }

    /// An array of strings.
    pub fn strings(&self, name: &str) -> Result<Option<Vec<String>>, DecodeError> {
        self.get(name)
            .map(|v| {
                Vec::<String>::try_from_js_value_ref(&v)
                    .ok_or_else(|| self.wrong(name, "an array of strings", &v))
            })
            .transpose()
    }

    /// An object's own `(key, value)` pairs.
    pub fn entries(&self, name: &str) -> Result<Vec<(String, JsValue)>, DecodeError> {
        let Some(v) = self.get(name) else {
            return Ok(Vec::new());
        };
        if !v.is_object() || v.is_array() {
            return Err(self.wrong(name, "an object", &v));
        }
        let keys = Vec::<String>::try_from_js_value_ref(&object_keys(&v)).unwrap_or_default();
        Ok(keys
            .into_iter()
            .map(|k| {
                let value = reflect_get(&v, &JsValue::from_str(&k));
                (k, value)
            })
            .collect())
    }
}

/// A number as a message names it: whole numbers by value, others by kind (float
/// formatting would add ~30 KB of code to each module for a message).
pub fn number(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e18 {
        format!("{}", n as i64)
    } else if n.is_nan() {
        "NaN".into()
    } else if n.is_finite() {
        "a fraction".into()
    } else {
        "an infinite number".into()
    }
}

/// How a message names a JS value's kind: `null`, `number 3`, `"text"`, `an object`.
pub fn kind(v: &JsValue) -> String {
    if let Some(s) = v.as_string() {
        format!("\"{s}\"")
    } else if let Some(n) = v.as_f64() {
        number(n)
    } else if let Some(b) = v.as_bool() {
        b.to_string()
    } else if v.is_null() {
        "null".into()
    } else if v.is_undefined() {
        "undefined".into()
    } else if v.is_bigint() {
        "a bigint".into()
    } else if v.is_array() {
        "an array".into()
    } else {
        "an object".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pick_names_the_option_and_its_values() {
        let t = [("a", 1), ("b", 2)];
        assert_eq!(pick(Format::TsFile, "unit", "b", &t), Ok(2));
        let e = pick(Format::TsFile, "unit", "x", &t).unwrap_err();
        assert_eq!(e.code, ErrorCode::Argument);
        assert_eq!(e.message, "option unit must be one of 'a', 'b', not 'x'");
    }

    #[test]
    fn count_takes_whole_numbers_in_u32_range() {
        let e = count(Format::MessagePack, "maxKeys", 1.5).unwrap_err();
        assert_eq!(
            e.message,
            "option maxKeys must be a whole number from 0 to 2^32-1, not a fraction"
        );
        assert_eq!(count(Format::MessagePack, "maxDepth", 7.0), Ok(7));
        assert_eq!(
            count(Format::MessagePack, "maxDepth", 4294967295.0),
            Ok(u32::MAX)
        );
        for bad in [-1.0, 1.5, 4294967296.0, f64::NAN] {
            assert!(
                count(Format::MessagePack, "maxDepth", bad).is_err(),
                "{bad}"
            );
        }
    }
}
