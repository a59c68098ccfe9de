//! The database in detail, for the panel.

use axum::Json as JsonOut;
use axum::extract::State;
use serde::Serialize;
use utoipa::ToSchema;

use crate::error::ApiError;

#[derive(Serialize, ToSchema)]
#[schema(as = AdminDatabaseAnswer)]
pub struct DatabaseAnswer {
    success: bool,
    database: crate::db::DatabaseStatus,
}

/// The database in detail: schema, size, journal mode, rows per table and the last backup.
#[utoipa::path(get, path = "/api/admin/database", tag = "admin", operation_id = "getAdminDatabaseStatus", security(("adminKey" = []), ("adminSession" = []), ("session" = [])),
    responses((status = 200, body = DatabaseAnswer), (status = 401, description = "Not an admin")))]
pub(crate) async fn database(State(db): State<crate::db::Db>) -> Result<JsonOut<DatabaseAnswer>, ApiError> {
    let database = db.read(crate::db::status).await?;
    Ok(JsonOut(DatabaseAnswer { success: true, database }))
}
