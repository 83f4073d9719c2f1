//! The model clients against local servers: placeholder replaced below.
