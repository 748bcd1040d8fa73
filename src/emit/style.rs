//! How a look draws, as the emitter needs it: the validated [`Style`] of a
//! bone tree (its file section and the shapes per bone are
//! [`crate::figure::style`]'s) and the style sheet rules it adds.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Opacity of far-side bones in the figure look (seed 000: 42 %).
pub const FAR_OPACITY: f64 = 0.42;
/// Width factor of far-side bones in the figure look.
pub const FAR_WIDTH: f64 = 0.8;
/// Width of a limb at its first joint, user units, for a bone of the
/// default width (a bone's own `style.width` scales it).
pub const WIDTH_ROOT: f64 = 8.0;
/// Width of a limb at its free end, user units (scaled as [`WIDTH_ROOT`]).
pub const WIDTH_TIP: f64 = 3.5;
/// Joint ball colour of the sticks look (seed 002), and the target discs'
/// of the limbs look.
pub const JOINT_FILL: &str = "#38bdf8";
/// Stroke width of a two-bone limb drawn as `ik_chains` and cycling legs
/// draw it: 0.16 × its shorter bone, 2 to 40 px, one decimal.
pub fn limb_width(thigh: f64, shin: f64) -> f64 {
    crate::geom::quantize((thigh.min(shin) * 0.16).clamp(2.0, 40.0), 1)
}
/// Colours of `ik_chains` limbs: the front chain, then every other.
pub const CHAIN_COLOURS: [&str; 2] = ["#264653", "#8fa3b0"];
/// Suffix of far-side bone names.
pub const FAR_SUFFIX: &str = "_f";
/// Bones drawn as a round head when `heads` is not given.
pub const DEFAULT_HEADS: [&str; 1] = ["head"];
/// A head's radius as a fraction of its bone's width (the joint ball the
/// sticks look draws there), unless half its length is larger.
pub const HEAD_WIDTH_FACTOR: f64 = 0.8;

/// A look by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Look {
    /// Seed 000: smooth tapered limbs, round head, far side thinner and translucent.
    #[default]
    Figure,
    /// Seed 002: straight sticks and joint balls (rigbake's drawing before styles).
    Sticks,
    /// Seed 001's legs, as `ik_chains` draw them: a thick round-capped
    /// stroke per bone (its `style.width`), no joint balls, and each `ik`
    /// target as a disc (0.6 × its lower bone's width) behind the limbs.
    Limbs,
}
/// A validated style (see [`crate::figure::style::check_style`]): widths at least 0.01,
/// opacity and width factor in (0, 1], colours `#rgb`/`#rrggbb` lower case,
/// heads name bones of the tree.
#[derive(Debug, Clone, PartialEq)]
pub struct Style {
    pub look: Look,
    pub stroke: Option<String>,
    pub far_stroke: Option<String>,
    pub width_root: f64,
    pub width_tip: f64,
    pub far_opacity: f64,
    pub far_width: f64,
    pub head_fill: Option<String>,
    /// `None`: [`DEFAULT_HEADS`].
    pub heads: Option<Vec<String>>,
    /// `None` (`"none"`): no joint balls (sticks) or target discs (limbs).
    pub joint_fill: Option<String>,
}

impl Default for Style {
    fn default() -> Self {
        Style::of(Look::Figure)
    }
}

impl Style {
    /// A look with no overrides.
    pub fn of(look: Look) -> Style {
        Style {
            look,
            stroke: None,
            far_stroke: None,
            width_root: WIDTH_ROOT,
            width_tip: WIDTH_TIP,
            far_opacity: FAR_OPACITY,
            far_width: FAR_WIDTH,
            head_fill: None,
            heads: None,
            joint_fill: Some(JOINT_FILL.into()),
        }
    }

    /// Is `name` drawn as a round head?
    pub fn is_head(&self, name: &str) -> bool {
        match &self.heads {
            Some(h) => h.iter().any(|x| x == name),
            None => DEFAULT_HEADS.contains(&name),
        }
    }
}

/// The style sheet rules a look adds to a figure file (unscoped class
/// names): stroked lines (bones, chains), and the joint fill (sticks:
/// joint balls; limbs: target discs) or the far-side opacity (figure).
pub fn css(style: &Style) -> String {
    match style.look {
        Look::Sticks | Look::Limbs => {
            let joint = style
                .joint_fill
                .as_ref()
                .map(|c| format!(".rb-joint{{fill:{c}}}"));
            format!(
                ".rb-bone{{fill:none;stroke-linecap:round}}{}",
                joint.unwrap_or_default()
            )
        }
        Look::Figure => format!(
            ".rb-bone{{fill:none;stroke-linecap:round}}.rb-far{{opacity:{}}}",
            crate::geom::fmt_short(style.far_opacity, 3)
        ),
    }
}
