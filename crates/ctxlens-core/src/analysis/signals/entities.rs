//! Signal 6 (docs/remedies.md): a summary must keep every entity the region chose or rejected,
//! each with its polarity: "rejected in-place migration" must not come back as "in-place
//! migration".

use crate::analysis::finding::{Finding, FindingKind, Severity};
use crate::analysis::gate::GateFlags;
use crate::analysis::state::StateAt;
use crate::model::{entity_key, EntityPolarity};
use std::ops::Range;

/// Checks the entities whose latest choice lies in `region` against the summary's
/// schema `entities` (`None`: the compaction has none).
/// The region signal: the summary's schema against the choices made in the region.
pub(crate) fn signal(region: &super::Region, flags: &mut GateFlags, findings: &mut Vec<Finding>) {
    check(
        region.id,
        region.state,
        region.events,
        region.extra.entities.as_deref(),
        flags,
        findings,
    );
}

fn check(
    id: &str,
    state: &StateAt,
    region: &Range<usize>,
    entities: Option<&[EntityPolarity]>,
    flags: &mut GateFlags,
    findings: &mut Vec<Finding>,
) {
    let covered: Vec<_> = state
        .choices
        .iter()
        .filter(|c| region.contains(&c.event))
        .collect();
    if covered.is_empty() {
        return;
    }
    let Some(entities) = entities else {
        flags.schema_missing = true;
        let names: Vec<&str> = covered.iter().map(|c| c.entity.as_str()).collect();
        findings.push(Finding::new(
            FindingKind::SchemaMissing,
            Severity::Warning,
            Some(id),
            format!(
                "{id} has no entity schema, so nothing checks that its summary kept the choices made in its region ({})",
                names.join(", ")
            ),
        ));
        return;
    };
    for choice in covered {
        let key = entity_key(&choice.entity);
        let entity = &choice.entity;
        let expected = choice.polarity;
        match entities.iter().find(|e| entity_key(&e.entity) == key) {
            None => findings.push(Finding::new(
                FindingKind::EntityDropped {
                    entity: entity.clone(),
                    polarity: expected,
                },
                Severity::Warning,
                Some(id),
                format!(
                    "{id}'s summary does not name {entity}, {} in its region",
                    expected.as_str()
                ),
            )),
            Some(found) if expected.flips(found.polarity) => {
                flags.polarity_flip = true;
                findings.push(Finding::new(
                    FindingKind::PolarityFlip {
                        entity: entity.clone(),
                        expected,
                        found: found.polarity,
                    },
                    Severity::Error,
                    Some(id),
                    format!(
                        "{id}'s summary has {entity} as {}, but it was {} in the region: the summary turned the decision around",
                        found.polarity.as_str(),
                        expected.as_str()
                    ),
                ));
            }
            Some(_) => {}
        }
    }
}
