//! Pulumi's resource names. A URN is `urn:pulumi:<stack>::<project>::<type>::<name>`,
//! where `<type>` is the parent types and the resource's own joined by `$`. Its address
//! is the whole URN; what a row shows is read from it here and nowhere else.

/// The type of the one resource every stack has at its root.
pub const ROOT_STACK_TYPE: &str = "pulumi:pulumi:Stack";
/// The type of a reference to another stack's outputs.
pub const STACK_REFERENCE_TYPE: &str = "pulumi:pulumi:StackReference";

/// A URN read into the parts a row shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Urn<'a> {
    /// The parent types and the resource's own, joined by `$`.
    pub type_path: &'a str,
    /// Everything after the third `::`, which may hold `::` itself.
    pub name: &'a str,
}

impl<'a> Urn<'a> {
    /// Reads a URN; `None` when it is not `urn:pulumi:` with its four parts.
    pub fn parse(urn: &'a str) -> Option<Urn<'a>> {
        let rest = urn.strip_prefix("urn:pulumi:")?;
        let mut parts = rest.splitn(4, "::");
        let (_stack, _project) = (parts.next()?, parts.next()?);
        let type_path = parts.next()?;
        let name = parts.next()?;
        if type_path.is_empty() {
            return None;
        }
        Some(Urn { type_path, name })
    }

    /// The resource's own type: the last `$` segment.
    pub fn kind(&self) -> &'a str {
        self.type_path.rsplit('$').next().unwrap_or(self.type_path)
    }

    /// Whether this is the stack's root resource (decision 0079): a `pulumi:pulumi:Stack`
    /// with no parent type in front; a nested one is a resource of the program.
    pub fn is_root_stack(&self) -> bool {
        self.type_path == ROOT_STACK_TYPE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_of_a_urn() {
        let urn =
            Urn::parse("urn:pulumi:dev::network::random:index/randomPet:RandomPet::name").unwrap();
        assert_eq!(urn.kind(), "random:index/randomPet:RandomPet");
        assert_eq!(urn.name, "name");
        assert!(!urn.is_root_stack());
    }

    #[test]
    fn a_child_takes_the_last_type_and_keeps_colons_in_its_name() {
        let urn = Urn::parse(
            "urn:pulumi:dev::web::my:component:Site$kubernetes:core/v1:ConfigMap::site::config",
        )
        .unwrap();
        assert_eq!(urn.kind(), "kubernetes:core/v1:ConfigMap");
        assert_eq!(urn.name, "site::config");
    }

    #[test]
    fn only_the_root_stack_is_the_root() {
        let root = Urn::parse("urn:pulumi:dev::web::pulumi:pulumi:Stack::web-dev").unwrap();
        assert!(root.is_root_stack());
        let nested = Urn::parse("urn:pulumi:dev::web::my:C$pulumi:pulumi:Stack::inner").unwrap();
        assert!(!nested.is_root_stack());
        assert_eq!(nested.kind(), ROOT_STACK_TYPE);
    }

    #[test]
    fn what_is_not_a_urn() {
        for text in [
            "",
            "urn:pulumi:dev::web",
            "urn:pulumi:dev::web::type",
            "urn:other:dev::web::t::n",
            "urn:pulumi:dev::web::::n",
        ] {
            assert_eq!(Urn::parse(text), None, "{text}");
        }
    }
}
