//! The options of one bake: how keys are placed ([`Keying`]), the fit and
//! the route, resolved from a rig and the command line's overrides. The
//! bake itself is [`crate::bake_rig`]: every rig is a bone tree (a cycling
//! rig and an `ik_chains` rig load as the tree they lower into), baked by
//! [`crate::figure`].

use crate::clip::Route;
use crate::fit::Fit;
pub use crate::fit::{BakeOptions, DEFAULT_TOLERANCE_PX, Keying, MAX_FIT_KEYS};
use crate::rig::Rig;

impl BakeOptions {
    /// The options for one rig and route, from optional overrides: `keys`
    /// (uniform) wins, then `tolerance_px`, then the rig's `tolerance_px`,
    /// then the rig's `keys`; with none of them, keys are fitted to
    /// [`DEFAULT_TOLERANCE_PX`] ([`Keying::Goal`]). The fit defaults to cubic
    /// for a fitted bake and to linear for uniform keys; with no `fit`
    /// given, a fitted css bake also sets [`BakeOptions::shortest_shape`]
    /// (each channel takes whichever of cubic and linear keys writes fewer
    /// bytes).
    pub fn resolve(
        rig: &Rig,
        route: Route,
        keys: Option<usize>,
        tolerance_px: Option<f64>,
        fit: Option<Fit>,
    ) -> Self {
        let keying = match (keys, tolerance_px.or(rig.tolerance_px), rig.keys) {
            (Some(n), _, _) => Keying::Uniform(n),
            (None, Some(px), _) => Keying::Tolerance(px),
            (None, None, Some(n)) => Keying::Uniform(n),
            (None, None, None) => Keying::Goal(DEFAULT_TOLERANCE_PX),
        };
        // (rotations take keySplines on smil too; a d morph keys linearly
        // whatever is asked)
        let chosen = fit;
        let fit = fit.unwrap_or(match keying.fit_tolerance() {
            Some(_) => Fit::Cubic,
            None => Fit::Linear,
        });
        // no `--fit`: a bone tree's css channels take the shorter shape
        let shortest_shape =
            chosen.is_none() && route == Route::Css && keying.fit_tolerance().is_some();
        BakeOptions {
            route,
            keying,
            fit,
            shortest_shape,
        }
    }
}
