//! `redis://` URLs.

/// `redis://[[USER]:PASSWORD@]HOST:PORT[/DB]` as `host:port`, credentials and database.
pub(super) type Parsed = (String, Option<(Option<String>, String)>, Option<u32>);

pub(super) fn parse_url(url: &str) -> Result<Parsed, String> {
    let rest = url
        .strip_prefix("redis://")
        .ok_or_else(|| format!("`{url}` is not a redis:// URL (redis://HOST:PORT[/DB])"))?;
    let (authority, db) = match rest.split_once('/') {
        Some((authority, "")) => (authority, None),
        Some((authority, db)) => (
            authority,
            Some(
                db.parse::<u32>()
                    .map_err(|_| format!("`{url}`: the database `{db}` is not a number"))?,
            ),
        ),
        None => (rest, None),
    };
    let (credentials, host) = match authority.rsplit_once('@') {
        Some((credentials, host)) => (Some(credentials), host),
        None => (None, authority),
    };
    let auth = credentials.map(|c| match c.split_once(':') {
        Some(("", password)) => (None, password.to_owned()),
        Some((user, password)) => (Some(user.to_owned()), password.to_owned()),
        None => (None, c.to_owned()),
    });
    if host.is_empty() {
        return Err(format!("`{url}` names no host"));
    }
    let addr = if host
        .rsplit_once(':')
        .is_some_and(|(_, port)| port.parse::<u16>().is_ok())
    {
        host.to_owned()
    } else {
        format!("{host}:6379")
    };
    Ok((addr, auth, db))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        assert_eq!(
            parse_url("redis://127.0.0.1:6380").unwrap(),
            ("127.0.0.1:6380".into(), None, None)
        );
        assert_eq!(
            parse_url("redis://cache/2").unwrap(),
            ("cache:6379".into(), None, Some(2))
        );
        assert_eq!(
            parse_url("redis://:s3cret@h:1/").unwrap(),
            ("h:1".into(), Some((None, "s3cret".into())), None)
        );
        assert_eq!(
            parse_url("redis://u:p@h:1").unwrap().1,
            Some((Some("u".into()), "p".into()))
        );
        assert!(parse_url("http://h:1").is_err());
        assert!(parse_url("redis://h:1/x").is_err());
        assert!(parse_url("redis://").is_err());
    }
}
