//! Requests through the router, without a network, for the API tests.

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use retro_server::{router, AppState};
use serde_json::Value;
use std::path::Path;
use std::sync::Arc;
use tower::ServiceExt;

/// The status and body text of `GET uri` over the tables in `dir`.
pub async fn get(dir: &Path, uri: &str) -> (StatusCode, String) {
    let app = router(Arc::new(AppState::new(dir)));
    let response = app
        .oneshot(Request::get(uri).body(Body::empty()).unwrap())
        .await
        .unwrap();
    let status = response.status();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    (status, String::from_utf8_lossy(&bytes).into_owned())
}

/// The status and JSON body of `GET uri` (null when the body is not JSON).
pub async fn get_json(dir: &Path, uri: &str) -> (StatusCode, Value) {
    let (status, text) = get(dir, uri).await;
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}
