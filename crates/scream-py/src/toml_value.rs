//! Python values to TOML and back: a scenario given as a dict becomes the scenario file
//! it stands for, and is then loaded by the same code as a file, so a dict is checked
//! key by key exactly like a file (and its errors read the same); a scenario read back
//! becomes plain dicts and lists.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use toml_edit::{Array, ArrayOfTables, DocumentMut, InlineTable, Item, Table, Value};

/// `key` as it appears in an error: `link.capacity_mbps`, `flows[0].ecn`.
fn child(parent: &str, key: &str) -> String {
    if parent.is_empty() {
        key.to_owned()
    } else {
        format!("{parent}.{key}")
    }
}

fn type_error(key: &str, value: &Bound<'_, PyAny>) -> PyErr {
    let ty = value
        .get_type()
        .name()
        .map_or_else(|_| "object".to_owned(), |n| n.to_string());
    let what = if value.is_none() {
        "None has no TOML form (leave the key out for its default)".to_owned()
    } else {
        let article = if ty.starts_with(['a', 'e', 'i', 'o', 'u']) {
            "an"
        } else {
            "a"
        };
        format!("{article} {ty} has no TOML form (use bool, int, float, str, list or dict)")
    };
    PyTypeError::new_err(format!("{key}: {what}"))
}

/// A dict's items with their keys as text.
fn items<'py>(dict: &Bound<'py, PyDict>, at: &str) -> PyResult<Vec<(String, Bound<'py, PyAny>)>> {
    dict.iter()
        .map(|(k, v)| {
            let key: String = k.extract().map_err(|_| {
                PyTypeError::new_err(format!(
                    "{}: keys must be str, not {}",
                    if at.is_empty() { "scenario" } else { at },
                    k.get_type()
                        .name()
                        .map_or_else(|_| "object".to_owned(), |n| n.to_string())
                ))
            })?;
            Ok((key, v))
        })
        .collect()
}

/// A Python value as an inline TOML value (what `--set KEY=VALUE` takes).
pub(crate) fn to_value(key: &str, value: &Bound<'_, PyAny>) -> PyResult<Value> {
    // bool before int: a Python bool is an int.
    if value.is_instance_of::<PyBool>() {
        return Ok(Value::from(value.extract::<bool>()?));
    }
    if value.is_instance_of::<PyInt>() {
        let v: i64 = value.extract().map_err(|_| {
            PyTypeError::new_err(format!(
                "{key}: {value} does not fit a TOML integer (64-bit)"
            ))
        })?;
        return Ok(Value::from(v));
    }
    if value.is_instance_of::<PyFloat>() {
        return Ok(Value::from(value.extract::<f64>()?));
    }
    if value.is_instance_of::<PyString>() {
        return Ok(Value::from(value.extract::<String>()?));
    }
    if value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>() {
        let mut array = Array::new();
        for (i, v) in value.try_iter()?.enumerate() {
            array.push(to_value(&format!("{key}[{i}]"), &v?)?);
        }
        return Ok(Value::Array(array));
    }
    if let Ok(dict) = value.cast::<PyDict>() {
        let mut table = InlineTable::new();
        for (k, v) in items(dict, key)? {
            let at = child(key, &k);
            table.insert(&k, to_value(&at, &v)?);
        }
        return Ok(Value::InlineTable(table));
    }
    Err(type_error(key, value))
}

/// A Python value as a TOML item: dicts become tables and lists of dicts arrays of
/// tables, as a scenario file writes them.
fn to_item(key: &str, value: &Bound<'_, PyAny>) -> PyResult<Item> {
    if let Ok(dict) = value.cast::<PyDict>() {
        return Ok(Item::Table(to_table(key, dict)?));
    }
    let is_list = value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>();
    if is_list {
        let entries: Vec<Bound<'_, PyAny>> = value.try_iter()?.collect::<PyResult<_>>()?;
        if !entries.is_empty() && entries.iter().all(|e| e.cast::<PyDict>().is_ok()) {
            let mut array = ArrayOfTables::new();
            for (i, e) in entries.iter().enumerate() {
                let dict = e.cast::<PyDict>()?;
                array.push(to_table(&format!("{key}[{i}]"), dict)?);
            }
            return Ok(Item::ArrayOfTables(array));
        }
    }
    to_value(key, value).map(Item::Value)
}

fn to_table(key: &str, dict: &Bound<'_, PyDict>) -> PyResult<Table> {
    let mut table = Table::new();
    for (k, v) in items(dict, key)? {
        let at = child(key, &k);
        table.insert(&k, to_item(&at, &v)?);
    }
    Ok(table)
}

/// A scenario given as a dict, as the text of the scenario file it stands for.
pub(crate) fn dict_to_toml(dict: &Bound<'_, PyDict>) -> PyResult<String> {
    let mut doc = DocumentMut::new();
    for (k, v) in items(dict, "")? {
        doc.insert(&k, to_item(&k, &v)?);
    }
    Ok(doc.to_string())
}

/// TOML text as plain Python dicts, lists and scalars (dates as their text).
fn toml_to_py<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    let doc: DocumentMut = text
        .parse()
        .map_err(|e| crate::errors::error(crate::errors::Kind::Scenario, format!("{e}")))?;
    item_to_py(py, doc.as_item())
}

fn item_to_py<'py>(py: Python<'py>, item: &Item) -> PyResult<Bound<'py, PyAny>> {
    match item {
        Item::None => Ok(py.None().into_bound(py)),
        Item::Value(v) => value_to_py(py, v),
        Item::Table(t) => {
            let dict = PyDict::new(py);
            for (k, v) in t.iter() {
                dict.set_item(k, item_to_py(py, v)?)?;
            }
            Ok(dict.into_any())
        }
        Item::ArrayOfTables(a) => {
            let list = PyList::empty(py);
            for t in a.iter() {
                let dict = PyDict::new(py);
                for (k, v) in t.iter() {
                    dict.set_item(k, item_to_py(py, v)?)?;
                }
                list.append(dict)?;
            }
            Ok(list.into_any())
        }
    }
}

fn value_to_py<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::String(s) => s.value().into_pyobject(py)?.into_any(),
        Value::Integer(i) => i.value().into_pyobject(py)?.into_any(),
        Value::Float(f) => f.value().into_pyobject(py)?.into_any(),
        Value::Boolean(b) => PyBool::new(py, *b.value()).to_owned().into_any(),
        Value::Datetime(d) => d.value().to_string().into_pyobject(py)?.into_any(),
        Value::Array(a) => {
            let list = PyList::empty(py);
            for v in a.iter() {
                list.append(value_to_py(py, v)?)?;
            }
            list.into_any()
        }
        Value::InlineTable(t) => {
            let dict = PyDict::new(py);
            for (k, v) in t.iter() {
                dict.set_item(k, value_to_py(py, v)?)?;
            }
            dict.into_any()
        }
    })
}

/// TOML text (a scenario file) as plain dicts, lists and scalars.
#[pyfunction]
pub(crate) fn toml_to_dict<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    toml_to_py(py, text)
}
