//! `scene`: drawn parts that are not bones (a bicycle's frame, a wheel's
//! spokes, a boat, the loop a foot follows), each path data with a paint.
//!
//! A part is static, or carried by a bone: then it is written inside that
//! bone's group (css: the bone's rotating `<g>`; smil: the `<g>` its
//! `animateTransform` moves), so it turns with the bone exactly and adds no
//! keyframes. Parts are written in the file in user space at the drawn pose
//! (t = 0 of the first clip); a carried part is stored in its bone's frame,
//! so it follows the bone into any drawn pose (a chain that replays another
//! chain's keys is drawn half a period earlier). Parts carry no probe:
//! nothing in them is measured.

use super::file::{LayerName, ScenePartFile};
use super::outline::{Outline, Seg};
use crate::clip::Item;
use crate::geom::{Affine, LEN_DECIMALS, quantize};
use crate::valid::RigError;
use crate::valid::{
    MAX_COORD, check_len, check_len_or_zero, check_name, invalid, opacity, paint, path_data, shown,
};

/// Most parts in one rig.
pub const MAX_PARTS: usize = 256;
/// Default stroke of a part.
pub const DEFAULT_PART_STROKE: &str = "#334155";
/// Default stroke width of a part, user units.
pub const DEFAULT_PART_WIDTH: f64 = 3.0;

/// A validated paint: `None` is `"none"`.
#[derive(Debug, Clone, PartialEq)]
pub struct Paint {
    pub stroke: Option<String>,
    pub width: f64,
    pub fill: Option<String>,
    pub opacity: f64,
    /// The stroke's dash lengths; empty for a solid stroke.
    pub dash: Vec<f64>,
}

/// A validated `scene` entry.
#[derive(Debug, Clone, PartialEq)]
pub struct ScenePart {
    pub name: String,
    /// User space for a static part; for a carried part, the bone's frame
    /// (x along the bone from its joint, y clockwise of it). Arcs are kept
    /// as arcs (see [`Outline`]).
    pub path: Outline,
    /// The carrying bone's index.
    pub bone: Option<usize>,
    pub layer: LayerName,
    pub paint: Paint,
}

/// Validate `scene`. `bones` names the rig's bones (empty for a rig
/// without a bone tree) and `drawn` gives each bone's frame → user space
/// map at the drawn pose, in which carried parts are written.
pub fn validate(
    files: &[ScenePartFile],
    bones: &[String],
    drawn: &[Affine],
) -> Result<Vec<ScenePart>, RigError> {
    if files.len() > MAX_PARTS {
        return Err(invalid(
            "scene",
            format!("at most {MAX_PARTS} parts, got {}", files.len()),
        ));
    }
    let mut out: Vec<ScenePart> = Vec::with_capacity(files.len());
    for (i, f) in files.iter().enumerate() {
        let p = format!("scene[{i}]");
        check_name(&format!("{p}.name"), &f.name)?;
        if let Some(j) = out.iter().position(|x| x.name == f.name) {
            return Err(invalid(
                format!("{p}.name"),
                format!("{:?} is already the name of scene[{j}]", f.name),
            ));
        }
        // checked (and read) by kurbo; kept as drawn where this reader
        // follows it (it follows whatever kurbo reads, tested)
        let bez = path_data(&format!("{p}.d"), &f.d)?;
        let mut path = Outline::parse(&f.d)
            .unwrap_or_else(|| Outline(bez.elements().iter().map(|&e| Seg::El(e)).collect()));
        // what is written is the outline (an arc's own numbers, and an
        // arc kurbo drops as degenerate), so every number of it is checked
        for (what, x) in path.numbers() {
            if !x.is_finite() || x.abs() > MAX_COORD {
                return Err(invalid(
                    format!("{p}.d"),
                    format!(
                        "{what} must be a number within ±{MAX_COORD}, got {}",
                        shown(x)
                    ),
                ));
            }
        }
        let bone = match &f.bone {
            None => None,
            Some(name) => {
                let Some(b) = bones.iter().position(|x| x == name) else {
                    let why = if bones.is_empty() {
                        "names no bone (a carried part needs a rig with `bones`)"
                    } else {
                        "names no bone"
                    };
                    return Err(invalid(format!("{p}.bone"), format!("{name:?} {why}")));
                };
                if f.layer.is_some() {
                    return Err(invalid(
                        format!("{p}.layer"),
                        "is for static parts; a part carried by a bone is drawn with its bone",
                    ));
                }
                path = path.mapped(drawn[b].inverse());
                Some(b)
            }
        };
        let s = &f.style;
        let stroke = paint(
            &format!("{p}.style.stroke"),
            s.stroke.as_deref().unwrap_or(DEFAULT_PART_STROKE),
        )?;
        let fill = paint(
            &format!("{p}.style.fill"),
            s.fill.as_deref().unwrap_or("none"),
        )?;
        let width = check_len(
            &format!("{p}.style.width"),
            s.width.unwrap_or(DEFAULT_PART_WIDTH),
        )?;
        let opacity = opacity(&format!("{p}.style.opacity"), s.opacity.unwrap_or(1.0))?;
        let dash = match &s.dash {
            None => Vec::new(),
            Some(v) => dash(&format!("{p}.style.dash"), v)?,
        };
        out.push(ScenePart {
            name: f.name.clone(),
            path,
            bone,
            layer: f.layer.unwrap_or_default(),
            paint: Paint {
                stroke,
                width,
                fill,
                opacity,
                dash,
            },
        });
    }
    Ok(out)
}

/// The written part: its path mapped by `m` (its bone's drawn frame, or
/// the identity for a static part), coordinates rounded as lengths are.
pub fn item(part: &ScenePart, m: Affine) -> Item {
    Item::Part {
        class: format!("rb-p-{}", part.name),
        d: part.path.mapped(m).d(),
        stroke: part.paint.stroke.clone(),
        width: quantize(part.paint.width, LEN_DECIMALS),
        fill: part.paint.fill.clone(),
        opacity: quantize(part.paint.opacity, 3),
        dash: part
            .paint
            .dash
            .iter()
            .map(|&x| quantize(x, LEN_DECIMALS))
            .collect(),
    }
}

/// Most lengths in a part's `dash`.
pub const MAX_DASHES: usize = 8;

/// A part's `dash`: 1 to [`MAX_DASHES`] lengths, each 0 or at least
/// [`crate::valid::MIN_LEN`] and within ±[`MAX_COORD`], not all 0 (a pattern of zeros draws nothing).
fn dash(path: &str, v: &[f64]) -> Result<Vec<f64>, RigError> {
    if v.is_empty() || v.len() > MAX_DASHES {
        return Err(invalid(
            path,
            format!("must hold 1 to {MAX_DASHES} lengths, got {}", v.len()),
        ));
    }
    for (i, &x) in v.iter().enumerate() {
        if !x.is_finite() || !(0.0..=MAX_COORD).contains(&x) {
            return Err(invalid(
                format!("{path}[{i}]"),
                format!("must be between 0 and {MAX_COORD}, got {}", shown(x)),
            ));
        }
        check_len_or_zero(&format!("{path}[{i}]"), x)?;
    }
    if v.iter().all(|&x| x == 0.0) {
        return Err(invalid(path, "all 0: the stroke would not be drawn"));
    }
    Ok(v.to_vec())
}

/// The static parts of one layer, in file order.
pub fn static_items(parts: &[ScenePart], layer: LayerName) -> Vec<Item> {
    parts
        .iter()
        .filter(|p| p.bone.is_none() && p.layer == layer)
        .map(|p| item(p, Affine::IDENTITY))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geom::Vec2;

    fn file(d: &str, bone: Option<&str>) -> ScenePartFile {
        ScenePartFile {
            name: "p".into(),
            d: d.into(),
            bone: bone.map(str::to_string),
            layer: None,
            style: Default::default(),
        }
    }

    /// A carried part is stored in its bone's frame and written back where
    /// it was drawn, whatever the bone's drawn frame.
    #[test]
    fn carried_part_round_trips_through_its_bone_frame() {
        let m = Affine::translate(Vec2::new(30.0, -12.0)) * Affine::rotate(0.7);
        let parts = validate(&[file("M10 20L50 60", Some("b"))], &["b".into()], &[m]).unwrap();
        assert_ne!(
            parts[0].path.0[0],
            Seg::El(kurbo::PathEl::MoveTo((10.0, 20.0).into()))
        );
        let Item::Part { d, .. } = item(&parts[0], m) else {
            panic!()
        };
        assert_eq!(d, "M10 20L50 60");
    }

    #[test]
    fn bad_parts_name_field_and_value() {
        let err = |f: ScenePartFile, bones: &[String]| {
            validate(&[f], bones, &[Affine::IDENTITY])
                .unwrap_err()
                .to_string()
        };
        let e = err(file("M 0 0 L nope", None), &[]);
        assert!(e.contains("scene[0].d") && e.contains("nope"), "{e}");
        let e = err(file("M0 0L1e300 0", None), &[]);
        assert!(e.contains("scene[0].d") && e.contains("1e300"), "{e}");
        let e = err(file("M0 0L1 0", Some("wheel")), &[]);
        assert!(e.contains("scene[0].bone") && e.contains("wheel"), "{e}");
        let mut f = file("M0 0L1 0", None);
        f.style.opacity = Some(1.5);
        let e = err(f, &[]);
        assert!(
            e.contains("scene[0].style.opacity") && e.contains("1.5"),
            "{e}"
        );
        let mut f = file("M0 0L1 0", None);
        f.style.fill = Some("red".into());
        let e = err(f, &[]);
        assert!(
            e.contains("scene[0].style.fill") && e.contains("red"),
            "{e}"
        );
        // a dash pattern: 1 to 8 lengths, each finite and >= 0, not all 0
        for (dash, at, what) in [
            (vec![], "scene[0].style.dash", "got 0"),
            (vec![1.0; 9], "scene[0].style.dash", "got 9"),
            (vec![6.0, -4.0], "scene[0].style.dash[1]", "-4"),
            (vec![f64::NAN], "scene[0].style.dash[0]", "NaN"),
            (vec![1e300], "scene[0].style.dash[0]", "1e300"),
            (vec![0.0, 0.0], "scene[0].style.dash", "all 0"),
        ] {
            let mut f = file("M0 0L1 0", None);
            f.style.dash = Some(dash.clone());
            let e = err(f, &[]);
            assert!(e.contains(at) && e.contains(what), "{dash:?}: {e}");
        }
        // a good one is written as the stroke's dash array, rounded
        let mut f = file("M0 0L1 0", None);
        f.style.dash = Some(vec![6.0, 4.004, 0.0]);
        let parts = validate(&[f], &[], &[]).unwrap();
        let Item::Part { dash, .. } = item(&parts[0], Affine::IDENTITY) else {
            unreachable!()
        };
        assert_eq!(dash, vec![6.0, 4.0, 0.0]);
    }
}
