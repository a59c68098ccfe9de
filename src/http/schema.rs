//! Helpers for the OpenAPI schemas the features derive.

/// A string schema that takes one of `values` (for `#[schema(schema_with = ...)]`).
pub fn string_enum(values: &[&str]) -> utoipa::openapi::Object {
    utoipa::openapi::ObjectBuilder::new()
        .schema_type(utoipa::openapi::Type::String)
        .enum_values(Some(values.iter().copied()))
        .build()
}
