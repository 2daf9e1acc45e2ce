//! What an extern object instance is ([`ExternKind`]), decided once by sema.

/// The extern object types of the architectures p4dp supports (`p4include/v1model.p4`,
/// `pna.p4`, `rtc.p4`), one variant each, and [`ExternKind::Other`] for any other (a type the
/// program declares itself). Types of different architectures are different variants even where
/// they do the same thing (v1model `register` and PNA `Register` take their index and value in a
/// different order, `Counter` of rtc.p4 is not PNA's), so that each architecture's method
/// translation matches its own; where one treatment serves both (control-plane objects, ids,
/// the runtime's extern table) a back end matches both variants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ExternKind {
    /// v1model `counter`.
    V1Counter,
    /// v1model `direct_counter`.
    V1DirectCounter,
    /// v1model `meter`.
    V1Meter,
    /// v1model `direct_meter`.
    V1DirectMeter,
    /// v1model `register`.
    V1Register,
    /// v1model `action_profile`.
    V1ActionProfile,
    /// v1model `action_selector`.
    V1ActionSelector,
    /// v1model's deprecated `Checksum16`.
    V1Checksum16,
    /// PNA `Counter`.
    PnaCounter,
    /// PNA `DirectCounter`.
    PnaDirectCounter,
    /// PNA `Meter`.
    PnaMeter,
    /// PNA `DirectMeter`.
    PnaDirectMeter,
    /// PNA `Register`.
    PnaRegister,
    /// PNA `ActionProfile`.
    PnaActionProfile,
    /// PNA `ActionSelector`.
    PnaActionSelector,
    /// PNA `Hash`.
    PnaHash,
    /// PNA `Checksum`.
    PnaChecksum,
    /// PNA `InternetChecksum`.
    PnaInternetChecksum,
    /// PNA `Random`.
    PnaRandom,
    /// PNA `Digest`.
    PnaDigest,
    /// rtc.p4 `Foreach`.
    RtcForeach,
    /// rtc.p4 `Sleep`.
    RtcSleep,
    /// rtc.p4 `Queue`.
    RtcQueue,
    /// rtc.p4 `TableOperation`.
    RtcTableOperation,
    /// rtc.p4 `Counter` (atomic cells with `count`, `get` and `set`).
    RtcCounter,
    /// rtc.p4 `Lock`.
    RtcLock,
    /// An extern type no architecture file declares.
    Other,
}

impl ExternKind {
    /// The kind of an instance of extern type `type_name` in a program of architecture `arch`
    /// ([`crate::Package::arch`]). The names are the architecture files'; `arch` only decides between
    /// the architectures that spell a type alike (`Counter`: rtc.p4's in an `rtc` program,
    /// PNA's otherwise).
    pub fn of(type_name: &str, arch: &str) -> ExternKind {
        use ExternKind::*;
        match type_name {
            "counter" => V1Counter,
            "direct_counter" => V1DirectCounter,
            "meter" => V1Meter,
            "direct_meter" => V1DirectMeter,
            "register" => V1Register,
            "action_profile" => V1ActionProfile,
            "action_selector" => V1ActionSelector,
            "Checksum16" => V1Checksum16,
            "Counter" if arch == "rtc" => RtcCounter,
            "Counter" => PnaCounter,
            "DirectCounter" => PnaDirectCounter,
            "Meter" => PnaMeter,
            "DirectMeter" => PnaDirectMeter,
            "Register" => PnaRegister,
            "ActionProfile" => PnaActionProfile,
            "ActionSelector" => PnaActionSelector,
            "Hash" => PnaHash,
            "Checksum" => PnaChecksum,
            "InternetChecksum" => PnaInternetChecksum,
            "Random" => PnaRandom,
            "Digest" => PnaDigest,
            "Foreach" => RtcForeach,
            "Sleep" => RtcSleep,
            "Queue" => RtcQueue,
            "TableOperation" => RtcTableOperation,
            "Lock" => RtcLock,
            _ => Other,
        }
    }

    /// An action profile or action selector (a table's `implementation`).
    pub fn is_action_profile(self) -> bool {
        matches!(
            self,
            ExternKind::V1ActionProfile
                | ExternKind::PnaActionProfile
                | ExternKind::V1ActionSelector
                | ExternKind::PnaActionSelector
        )
    }

    /// An action selector (an action profile whose groups pick a member by hash).
    pub fn is_action_selector(self) -> bool {
        matches!(self, ExternKind::V1ActionSelector | ExternKind::PnaActionSelector)
    }

    /// An indexed or direct meter of any architecture.
    pub fn is_meter(self) -> bool {
        matches!(
            self,
            ExternKind::V1Meter | ExternKind::V1DirectMeter | ExternKind::PnaMeter | ExternKind::PnaDirectMeter
        )
    }
}

/// A meter's type (P4Runtime MeterSpec.Type), chosen by an annotation on the meter instance
/// (`@two_rate_three_color`, `@single_rate_three_color`, `@single_rate_two_color`; none: two-rate).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MeterType {
    /// RFC 2698, "A Two Rate Three Color Marker" (J. Heinanen, R. Guerin): cir, cburst,
    /// pir >= cir, pburst; eburst 0.
    #[default]
    TwoRateThreeColor,
    /// RFC 2697, "A Single Rate Three Color Marker" (J. Heinanen, R. Guerin): cir, cburst (CBS),
    /// eburst (EBS); pir == cir, pburst == cburst.
    SingleRateThreeColor,
    /// RFC 2697's committed bucket alone, GREEN or RED: pir == cir, pburst == cburst, eburst 0.
    SingleRateTwoColor,
}

impl MeterType {
    pub const ALL: [MeterType; 3] = [
        MeterType::TwoRateThreeColor,
        MeterType::SingleRateThreeColor,
        MeterType::SingleRateTwoColor,
    ];

    /// The annotation that selects this type.
    pub fn annotation(self) -> &'static str {
        match self {
            MeterType::TwoRateThreeColor => "two_rate_three_color",
            MeterType::SingleRateThreeColor => "single_rate_three_color",
            MeterType::SingleRateTwoColor => "single_rate_two_color",
        }
    }

    /// The type an annotation name selects, if it is one of the three.
    pub fn of_annotation(name: &str) -> Option<MeterType> {
        MeterType::ALL.into_iter().find(|t| t.annotation() == name)
    }
}

/// What an action selector's `size` and group sizes count (P4Runtime
/// `ActionProfile.selector_size_semantics`), chosen by `@selector_size_semantics("...")` on the
/// selector instance; without it, the sum of weights.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SizeSemantics {
    /// A group's size is the sum of its members' weights.
    #[default]
    SumOfWeights,
    /// A group's size is the number of its members, whatever their weights (each at most
    /// `max_member_weight` when that is given).
    SumOfMembers,
}

impl SizeSemantics {
    pub const ALL: [SizeSemantics; 2] = [SizeSemantics::SumOfWeights, SizeSemantics::SumOfMembers];

    /// The `@selector_size_semantics` argument that selects it.
    pub fn annotation_value(self) -> &'static str {
        match self {
            SizeSemantics::SumOfWeights => "sum_of_weights",
            SizeSemantics::SumOfMembers => "sum_of_members",
        }
    }
}

/// An action selector's group limits and who weighs its members, from annotations on the
/// instance (P4Runtime spec, "ActionProfile"): `@selector_size_semantics`, `@max_group_size`,
/// `@max_member_weight`, `@weights_disallowed`. Sema checks them; the default (no annotation) is
/// sum of weights without limits, weights given by the controller.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SelectorSizing {
    pub semantics: SizeSemantics,
    /// `@max_group_size(N)`: the largest group in the semantics' unit; 0 when not given.
    pub max_group_size: u32,
    /// `@max_member_weight(N)` (sum of members only): the largest weight; 0 when not given.
    pub max_member_weight: u32,
    /// `@weights_disallowed`: the switch weighs the members (each the same in p4dp), the
    /// controller gives no weights (P4Info `weights_disallowed`).
    pub weights_disallowed: bool,
}

#[cfg(test)]
mod tests {
    use super::ExternKind;

    #[test]
    fn extern_kind_by_name_and_architecture() {
        assert_eq!(ExternKind::of("register", "v1model"), ExternKind::V1Register);
        assert_eq!(ExternKind::of("Register", "pna"), ExternKind::PnaRegister);
        // rtc.p4 and pna.p4 both declare `Counter`: the program's architecture decides
        assert_eq!(ExternKind::of("Counter", "rtc"), ExternKind::RtcCounter);
        assert_eq!(ExternKind::of("Counter", "pna"), ExternKind::PnaCounter);
        assert_eq!(ExternKind::of("Queue", "rtc"), ExternKind::RtcQueue);
        assert_eq!(ExternKind::of("my_extern", "v1model"), ExternKind::Other);
        assert!(ExternKind::of("action_selector", "v1model").is_action_profile());
        assert!(ExternKind::of("ActionSelector", "pna").is_action_selector());
        assert!(!ExternKind::of("ActionProfile", "pna").is_action_selector());
        assert!(!ExternKind::of("counter", "v1model").is_action_profile());
    }
}
