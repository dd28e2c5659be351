//! assess/combine.rs: assessors made of assessors — first decisive answer, strictest answer.
//! They only choose between answers; they never make one up except the fail-closed `Unsure`
//! when there is nothing to choose from.

use crate::assess::{AssessRequest, Assessment, Decision, RiskAssessor, UnsureKind};

/// Asks its assessors in order and returns the first decisive answer (`Allow` or `Reject`);
/// the ones after it are not asked.
///
/// When every assessor is unsure, the first `Unsure` is the answer (its reason and kind are
/// usually the most specific: put cheap rules first, a model last). With no assessor at all the
/// answer is `Unsure { kind: unable_to_assess }`.
#[derive(Default)]
pub struct FirstDecisive {
    assessors: Vec<Box<dyn RiskAssessor>>,
}

/// Asks all its assessors and returns the strictest answer: `Reject` > `Unsure` > `Allow`.
///
/// Among equally strict answers the first wins, except that among `Unsure` answers a kind that
/// always needs a human (`install_package_outside_allowed_paths`, `change_system_status`) wins
/// over `modify_existing_files`, which wins over `other`, which wins over `unable_to_assess`:
/// combining never hides a reason to ask a person. With no assessor at all the answer is
/// `Unsure { kind: unable_to_assess }`.
#[derive(Default)]
pub struct Strictest {
    assessors: Vec<Box<dyn RiskAssessor>>,
}

impl FirstDecisive {
    /// An empty combination; add assessors with [`FirstDecisive::or`].
    pub fn new() -> FirstDecisive {
        FirstDecisive::default()
    }

    /// Adds an assessor, asked after the ones already added.
    pub fn or(mut self, assessor: impl RiskAssessor + 'static) -> FirstDecisive {
        self.assessors.push(Box::new(assessor));
        self
    }

    /// Adds an assessor that is already boxed.
    pub fn or_boxed(mut self, assessor: Box<dyn RiskAssessor>) -> FirstDecisive {
        self.assessors.push(assessor);
        self
    }
}

impl RiskAssessor for FirstDecisive {
    fn assess(&self, request: &AssessRequest<'_>) -> Assessment {
        let mut first_unsure = None;
        for assessor in &self.assessors {
            let answer = assessor.assess(request);
            match answer.decision {
                Decision::Allow | Decision::Reject => return answer,
                Decision::Unsure => {
                    first_unsure.get_or_insert(answer);
                }
            }
        }
        first_unsure.unwrap_or_else(|| Assessment::unable("no assessor is configured"))
    }
}

impl Strictest {
    /// An empty combination; add assessors with [`Strictest::and`].
    pub fn new() -> Strictest {
        Strictest::default()
    }

    /// Adds an assessor.
    pub fn and(mut self, assessor: impl RiskAssessor + 'static) -> Strictest {
        self.assessors.push(Box::new(assessor));
        self
    }

    /// Adds an assessor that is already boxed.
    pub fn and_boxed(mut self, assessor: Box<dyn RiskAssessor>) -> Strictest {
        self.assessors.push(assessor);
        self
    }
}

impl RiskAssessor for Strictest {
    fn assess(&self, request: &AssessRequest<'_>) -> Assessment {
        let mut strictest: Option<Assessment> = None;
        for assessor in &self.assessors {
            let answer = assessor.assess(request);
            // Strictly greater: the first of equals stays.
            if strictest
                .as_ref()
                .is_none_or(|best| strictness(&answer) > strictness(best))
            {
                strictest = Some(answer);
            }
        }
        strictest.unwrap_or_else(|| Assessment::unable("no assessor is configured"))
    }
}

/// The order `Strictest` compares answers in: the decision first, then, for `Unsure`, how
/// strongly its kind calls for a person.
fn strictness(answer: &Assessment) -> (u8, u8) {
    let kind = match answer.kind {
        Some(UnsureKind::InstallPackageOutsideAllowedPaths | UnsureKind::ChangeSystemStatus) => 3,
        Some(UnsureKind::ModifyExistingFiles) => 2,
        Some(UnsureKind::Other) | None => 1,
        Some(UnsureKind::UnableToAssess) => 0,
    };
    (answer.decision.rank(), kind)
}
