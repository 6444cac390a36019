use reqwest::Url;

/// Where GitHub's two APIs are. On GitHub Actions both come from the runner's
/// environment, which is how GitHub Enterprise Server works without a setting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoints {
    pub rest: Url,
    pub graphql: Url,
}

#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum EndpointsError {
    #[error("{variable} is not an address: {value:?}")]
    NotAnAddress {
        variable: &'static str,
        value: String,
    },
}

impl Endpoints {
    /// Reads `GITHUB_API_URL` and `GITHUB_GRAPHQL_URL` through `var`. Without the first,
    /// GitHub.com; without the second, the GraphQL address that goes with the first
    /// (`…/api/v3` becomes `…/api/graphql` on Enterprise Server, else `…/graphql`).
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Self, EndpointsError> {
        let rest_text = var("GITHUB_API_URL").unwrap_or_else(|| "https://api.github.com".into());
        let rest = parse("GITHUB_API_URL", &rest_text)?;
        let graphql = match var("GITHUB_GRAPHQL_URL") {
            Some(text) => parse("GITHUB_GRAPHQL_URL", &text)?,
            None => {
                let base = rest_text.trim_end_matches('/');
                let derived = match base.strip_suffix("/api/v3") {
                    Some(host) => format!("{host}/api/graphql"),
                    None => format!("{base}/graphql"),
                };
                parse("GITHUB_API_URL", &derived)?
            }
        };
        Ok(Endpoints { rest, graphql })
    }

    /// Both APIs under one base, as the emulator serves them.
    pub fn at(base: &str) -> Result<Self, EndpointsError> {
        let base = base.trim_end_matches('/');
        Ok(Endpoints {
            rest: parse("GITHUB_API_URL", base)?,
            graphql: parse("GITHUB_GRAPHQL_URL", &format!("{base}/graphql"))?,
        })
    }

    pub(crate) fn rest_url(&self, path_and_query: &str) -> String {
        format!(
            "{}{path_and_query}",
            self.rest.as_str().trim_end_matches('/')
        )
    }
}

fn parse(variable: &'static str, value: &str) -> Result<Url, EndpointsError> {
    match Url::parse(value) {
        Ok(url) if matches!(url.scheme(), "http" | "https") => Ok(url),
        _ => Err(EndpointsError::NotAnAddress {
            variable,
            value: value.to_owned(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn from(pairs: &[(&str, &str)]) -> Endpoints {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Endpoints::from_vars(|name| {
            pairs
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        })
        .unwrap()
    }

    #[test]
    fn github_com_when_the_runner_says_nothing() {
        let endpoints = from(&[]);
        assert_eq!(endpoints.rest.as_str(), "https://api.github.com/");
        assert_eq!(endpoints.graphql.as_str(), "https://api.github.com/graphql");
    }

    #[test]
    fn enterprise_server_graphql_is_derived_from_its_rest_address() {
        let endpoints = from(&[("GITHUB_API_URL", "https://ghe.example.test/api/v3")]);
        assert_eq!(
            endpoints.graphql.as_str(),
            "https://ghe.example.test/api/graphql"
        );
        assert_eq!(
            endpoints.rest_url("/repos/o/r"),
            "https://ghe.example.test/api/v3/repos/o/r"
        );
    }

    #[test]
    fn the_runner_s_graphql_address_wins() {
        let endpoints = from(&[
            ("GITHUB_API_URL", "http://127.0.0.1:9/"),
            ("GITHUB_GRAPHQL_URL", "http://127.0.0.1:9/gql"),
        ]);
        assert_eq!(endpoints.graphql.as_str(), "http://127.0.0.1:9/gql");
    }

    #[test]
    fn a_variable_that_is_not_an_address_is_named() {
        let error = Endpoints::from_vars(|name| (name == "GITHUB_API_URL").then(|| "ftp:x".into()))
            .unwrap_err();
        assert_eq!(
            error.to_string(),
            "GITHUB_API_URL is not an address: \"ftp:x\""
        );
    }
}
