//! `ik_chains` lowered into the skeleton.
//!
//! A validated `ik_chains` file is rewritten as the bone tree that solves
//! the same pose: each chain a root bone at its root (carried by its own
//! `move` when the root moves), a thigh and a shin, and an `ik` entry,
//! named as the chain, aiming the shin's tip at the chain's target. The
//! chain's `depth_offset` is its root bone's (on css a far chain is drawn
//! at the near one's coordinates inside one translate, sharing its rules)
//! and moves the target alike. The tree is
//! drawn in the `limbs` look at the chain's widths and colours, so the
//! lowered file draws what the chain file always drew, and its probes and
//! report lines keep the chain's names (`<chain>-ankle`, `<chain>-target`).
//!
//! The chain file is validated first ([`super::validate_chains`]), so every
//! error names the user's own JSON path (`ik_chains[1].thigh`). The tree
//! built here is then validated as any bone tree: a value it writes may be
//! made of several of the rig's own (a target moved by its depth offset,
//! a crank centre less a hip), each within the loader's bounds but not
//! their sum. Each lowering keeps where such values come from
//! ([`Lowered`]), so that error names the rig's fields as well as the
//! tree's ([`Lowered::explain`]). Angles the lowering writes are reduced
//! below a turn ([`below_a_turn`]), so large ones lower as they load.
//!
//! A cycling rig (`crank` + `legs`) lowers the same way ([`legs_as_bones`]):
//! each leg a root bone at its hip holding a thigh and a shin, and an `ik`
//! entry named as the leg aiming the shin's tip at the pedal's circle (the
//! mapping `tests/v1_mapping.rs` checks); each leg's side of the crank a
//! bone of that hip of length 0, jointed at the crank centre and turning
//! once per period from its pedal's start angle, carrying its arm (a scene
//! part) and, at the arm's end, a pedal bone that turns back so it stays
//! level; the chainring (dashed, so it is seen to turn) on the crank bone
//! of the first leg without a depth offset, or on a bone `crank` of its
//! own; the crank and pedal bones named for a drawing as cycling
//! drawings name them (`parts`: `crank-<leg>`, `pedal-<leg>`, `crank`);
//! the torso a bone from hip to neck carrying a head bone; each Verlet
//! chain's fixed anchor a root bone at that point.
//! A leg's `depth_offset` is its hip bone's: the whole side (hip, crank,
//! pedal, thigh, shin) is drawn at the near side's coordinates inside one
//! translate on css, so the two sides share their rules; the target
//! circle moves with it.

use super::{RigError, RigFile};
use crate::chain::IkChain;
use crate::emit::style::{CHAIN_COLOURS, limb_width};
use crate::geom::{LEN_DECIMALS, Vec2, fmt_len, quantize};
use serde_json::{Value, json};
use std::collections::HashSet;

/// The root, thigh and shin bone names of every chain: `<chain>_hip`,
/// `<chain>_thigh`, `<chain>_shin`, unless such a name is longer than a
/// name may be (32) or taken (by a chain, whose `ik` entry carries its
/// name, or by an earlier bone; chains `a` and `a_thigh` would clash): then
/// `c<i>_<part>`, with `_<k>` added until it is free.
fn bone_names(chains: &[crate::chain::IkChainFile]) -> Vec<[String; 3]> {
    let stems: Vec<&str> = chains.iter().map(|c| c.name.as_str()).collect();
    Names::new(&stems).limbs(&stems, ["hip", "thigh", "shin"])
}

/// Bone names handed out once each: a wanted name, unless it is no valid
/// bone name (a cycling leg's name may hold a `-`, or be 33 long, or be a
/// reserved word) or taken (by an `ik` entry's name, or by an earlier
/// bone), then `c<i>_<part>`, with `_<k>` added until it is free.
struct Names {
    taken: HashSet<String>,
}

impl Names {
    /// Names that are taken from the start: the `ik` entries'.
    fn new(entries: &[&str]) -> Names {
        Names {
            taken: entries.iter().map(|n| n.to_string()).collect(),
        }
    }

    fn take(&mut self, wanted: String, i: usize, part: &str) -> String {
        let mut name = wanted;
        let mut k = 0;
        while crate::valid::check_name("", &name).is_err() || self.taken.contains(&name) {
            name = match k {
                0 => format!("c{i}_{part}"),
                _ => format!("c{i}_{part}_{k}"),
            };
            k += 1;
        }
        self.taken.insert(name.clone());
        name
    }

    /// `<stem>_<part>` for every stem and part.
    fn limbs<const N: usize>(&mut self, stems: &[&str], parts: [&str; N]) -> Vec<[String; N]> {
        stems
            .iter()
            .enumerate()
            .map(|(i, stem)| parts.map(|part| self.take(format!("{stem}_{part}"), i, part)))
            .collect()
    }
}

/// A lowered tree and where its values come from.
pub(crate) struct Lowered {
    pub file: RigFile,
    sources: Vec<Source>,
}

/// Values of a lowered tree made of the rig's own: `at`, a JSON path in the
/// tree (of a value, or of the object holding it), and `from`, the rig's
/// fields it is made of, as the rig spells them; in `from`, `{k}` stands
/// for the coordinate (`[0]`, `[1]`) the tree's path ends in, and `{rest}`
/// for what follows `at` in it.
struct Source {
    at: String,
    from: String,
}

impl Lowered {
    /// `err`, an error the loader found in this tree, as
    /// [`RigError::Lowered`] naming the rig's fields it comes from: those
    /// of the source whose `at` is the longest that holds the error's path.
    /// An error at no source's path is wrapped with no fields named when
    /// `always` (a cycling rig's tree: every value of it is the lowering's,
    /// but its Verlet chains' own fields, returned as they are), else
    /// returned as it is (an `ik_chains` rig: its scene and ground are the
    /// rig's own).
    pub(crate) fn explain(&self, err: RigError, always: bool) -> RigError {
        let path = match &err {
            RigError::Invalid { path, .. }
            | RigError::Json { path, .. }
            | RigError::Unreachable { path, .. } => path.clone(),
            RigError::Lowered { .. } => return err,
        };
        let holds = |at: &str| {
            path == at || path.starts_with(at) && matches!(path.as_bytes()[at.len()], b'.' | b'[')
        };
        let source = self
            .sources
            .iter()
            .filter(|s| holds(&s.at))
            .max_by_key(|s| s.at.len());
        // (a cycling rig's Verlet chains are its own in the tree, at the
        // same paths, but for their anchors: each a root bone at the
        // rig's fixed point)
        let own = path.starts_with("chains[") && !path.contains(".anchor");
        if source.is_none() && (!always || own) {
            return err;
        }
        let inputs = source.map(|s| {
            let k = ["[0]", "[1]"]
                .into_iter()
                .find(|k| path.ends_with(k))
                .unwrap_or("");
            s.from
                .replace("{rest}", &path[s.at.len()..])
                .replace("{k}", k)
        });
        RigError::Lowered {
            inputs,
            error: Box::new(err),
        }
    }
}

/// `deg` reduced below a turn, keeping its sign (`fmod`, exact): the same
/// direction, so the same pose, and an angle already below a turn kept as
/// written. Angles the lowering sums (a crank's start and a leg's phase,
/// each within the loader's ±1,000,000) or keys a turn on are reduced
/// first, so they stay within the loader's bounds.
pub(crate) fn below_a_turn(deg: f64) -> f64 {
    // (+ 0.0: -360 reduces to -0, written as 0)
    deg % 360.0 + 0.0
}

/// The JSON path in `bones` (a tree's bones as built) of every bone named
/// in `named` (name, a field of it or "", the rig's fields it is made of).
fn bone_sources(bones: &[Value], named: Vec<(String, &str, String)>) -> Vec<Source> {
    named
        .into_iter()
        .filter_map(|(name, field, from)| {
            let j = bones.iter().position(|b| b["name"] == name.as_str())?;
            Some(Source {
                at: format!("bones[{j}]{field}"),
                from,
            })
        })
        .collect()
}

/// A zero-length root bone at `at`, carrying `depth_offset` when it has one.
fn root_bone(name: &str, at: [f64; 2], depth_offset: [f64; 2]) -> Value {
    let mut root = json!({"name": name, "at": at, "length": 0});
    if depth_offset != [0.0, 0.0] {
        root["depth_offset"] = json!(depth_offset);
    }
    root
}

/// The bone-tree spelling of `file` (an `ik_chains` rig), given its
/// validated chains (their roots at t = 0 place the root bones). It writes
/// no angle of its own: a trajectory's are the chain's, as written.
pub(crate) fn as_bones(file: &RigFile, chains: &[IkChain]) -> Lowered {
    let mut limbs: Vec<[Value; 3]> = Vec::new();
    let mut iks = Vec::new();
    let mut named = Vec::new();
    let mut sources = Vec::new();
    let names = bone_names(&file.ik_chains);
    for (i, ((c, vc), [hip, thigh, shin])) in
        file.ik_chains.iter().zip(chains).zip(names).enumerate()
    {
        let off = c.depth_offset;
        let r0: Vec2 = vc.root.at(0.0);
        // the depth offset written once, around the chain (a far chain at
        // the near one's coordinates shares its rules)
        let mut root = root_bone(&hip, [r0.x, r0.y], off);
        if !matches!(c.root, crate::trajectory::TrajectoryFile::Fixed(_)) {
            root["move"] = json!(c.root);
        }
        // the chain's drawing: the front chain dark, the others light
        let style = json!({
            "width": limb_width(c.thigh, c.shin),
            "stroke": CHAIN_COLOURS[i.min(1)],
        });
        limbs.push([
            root,
            json!({"name": thigh, "parent": hip, "length": c.thigh, "style": style}),
            json!({"name": shin, "parent": thigh, "length": c.shin, "style": style}),
        ]);
        iks.push(json!({
            "name": c.name, "upper": thigh, "lower": shin,
            "target": c.target.translated(off), "knee": c.knee, "reach": c.reach,
        }));
        let p = format!("ik_chains[{i}]");
        for (bone, part) in [(&hip, "root"), (&thigh, "thigh"), (&shin, "shin")] {
            named.push((bone.clone(), "", format!("{p}.{part}")));
        }
        named.push((hip.clone(), ".at", format!("{p}.root (at t = 0)")));
        named.push((hip.clone(), ".move", format!("{p}.root{{rest}}")));
        named.push((hip.clone(), ".depth_offset", format!("{p}.depth_offset")));
        sources.push(Source {
            at: format!("ik[{i}]"),
            from: p.clone(),
        });
        sources.push(Source {
            at: format!("ik[{i}].target"),
            from: format!("{p}.target{{rest}} + {p}.depth_offset{{k}}"),
        });
    }
    // chains are listed front to back, bones drawn back to front
    let bones: Vec<Value> = limbs.into_iter().rev().flatten().collect();
    sources.extend(bone_sources(&bones, named));
    let mut out = tree(file, bones, iks);
    out.scene = file.scene.clone();
    out.ground = file.ground.clone();
    Lowered { file: out, sources }
}

/// The tree of `bones` and `iks` in the `limbs` look, with `file`'s name,
/// view box, period, keys and tolerance.
fn tree(file: &RigFile, bones: Vec<Value>, iks: Vec<Value>) -> RigFile {
    let tree = json!({
        "name": file.name,
        "view_box": file.view_box,
        "period_s": file.period_s,
        "bones": bones,
        "ik": iks,
        "style": "limbs",
    });
    let mut out: RigFile = serde_json::from_value(tree).expect("a lowered rig is well formed");
    out.keys = file.keys;
    out.tolerance_px = file.tolerance_px;
    out
}

/// The bone-tree spelling of `file`, a validated cycling rig (`crank` +
/// `legs`; see the module docs). The tree solves the same pose at every
/// time: every hip, knee, ankle and crank end within rounding of the
/// crank-and-leg closed form (`tests/v1_mapping.rs`). Every angle it writes is below a turn, or a turn past
/// one ([`below_a_turn`]).
pub(crate) fn legs_as_bones(file: &RigFile) -> Lowered {
    let crank = file
        .crank
        .as_ref()
        .expect("a validated cycling rig has a crank");
    let sign = crank.direction.sign();
    let stems: Vec<&str> = file.legs.iter().map(|l| l.name.as_str()).collect();
    // a leg's `ik` entry is named as the leg where that is a valid entry
    // name (so its probes and report line keep the leg's); a leg named
    // with a `-` or a reserved word gets an unnamed entry
    let entry_names: Vec<Option<&str>> = stems
        .iter()
        .map(|n| crate::valid::check_name("", n).is_ok().then_some(*n))
        .collect();
    let mut names = Names::new(&entry_names.iter().flatten().copied().collect::<Vec<_>>());
    let leg_names = names.limbs(&stems, ["hip", "thigh", "shin", "crank", "pedal"]);
    let mut sides: Vec<Vec<Value>> = Vec::new();
    let mut iks = Vec::new();
    let mut blocks: Vec<(String, (String, f64))> = Vec::new();
    let mut arms: Vec<(String, String, f64)> = Vec::new();
    let ring_leg = file.legs.iter().position(|l| l.depth_offset == [0.0, 0.0]);
    let mut ring: Option<String> = None;
    let mut named: Vec<(String, &str, String)> = Vec::new();
    let mut sources: Vec<Source> = Vec::new();
    // (scene parts are named at the end: the arm and block of each leg)
    let mut part_from: Vec<String> = Vec::new();
    for (i, (leg, [hip, thigh, shin, crank_arm, pedal])) in
        file.legs.iter().zip(leg_names).enumerate()
    {
        let d = leg.depth_offset;
        // the crank's start and the leg's phase (each may be near
        // ±1,000,000) reduced before they are added, then their sum
        let start = below_a_turn(below_a_turn(crank.start_deg) + below_a_turn(leg.phase_deg));
        let turn = |from: f64, by: f64| json!({"track": {"keys": [[0, from], [1, from + by]], "ease": "linear"}});
        let width = limb_width(leg.thigh, leg.shin);
        let style = json!({"width": width, "stroke": CHAIN_COLOURS[i.min(1)]});
        // each leg's crank arm and pedal block
        let arm_width = quantize((width * 0.35).max(1.5), 1);
        let centre = Vec2::new(crank.center[0] + d[0], crank.center[1] + d[1]);
        let axle = centre + Vec2::from_angle(start.to_radians()) * crank.radius;
        blocks.push((
            pedal.clone(),
            capsule(
                axle,
                quantize((crank.radius * 0.5).max(4.0), LEN_DECIMALS),
                quantize((width * 0.4).max(2.0), LEN_DECIMALS),
            ),
        ));
        // the crank arm drawn from the centre to the axle, carried by
        // its crank bone
        arms.push((crank_arm.clone(), line_d(centre, axle), arm_width));
        // a drawing names the crank arm and pedal as cycling drawings
        // do (`crank-<leg>`, `pedal-<leg>`) where the leg's name allows
        let part = |what: &str| {
            let name = format!("{what}-{}", leg.name);
            (name.len() <= 64 && crate::valid::is_ident(&name, &['.'])).then_some(name)
        };
        // one subtree per side, rooted at the hip: its depth offset is
        // written once, and a far side drawn at the near side's
        // coordinates shares the near side's rules
        let root = root_bone(&hip, leg.hip, d);
        let mut arm = json!({"name": crank_arm, "parent": hip,
               "at": [crank.center[0] - leg.hip[0], crank.center[1] - leg.hip[1]],
               "length": 0, "angle": turn(start, 360.0 * sign)});
        // the pedal turns back as the crank turns: level at every time
        let mut block = json!({"name": pedal, "parent": crank_arm, "at": [crank.radius, 0],
               "length": 0, "angle": turn(-start, -360.0 * sign)});
        // the first leg drawn without a depth offset carries the chainring
        // on its crank bone, which a drawing's `crank` also names
        let mut arm_parts: Vec<String> = part("crank").into_iter().collect();
        if ring_leg == Some(i) {
            arm_parts.push("crank".into());
            ring = Some(crank_arm.clone());
        }
        arm["parts"] = json!(arm_parts);
        block["parts"] = json!(part("pedal").into_iter().collect::<Vec<_>>());
        sides.push(vec![
            root,
            arm,
            block,
            json!({"name": thigh, "parent": hip, "length": leg.thigh, "style": style}),
            json!({"name": shin, "parent": thigh, "length": leg.shin, "style": style}),
        ]);
        // a leg's `reach` ("error", "clamp") is an `ik` entry's too
        let mut entry = json!({
            "upper": thigh, "lower": shin, "knee": leg.knee, "reach": leg.reach,
            // drawn on smil as one morphed path
            "smil": "morph",
            // keyed on css as a pair: its bones
            // together (each alone never writes fewer bytes for a pedalling
            // leg, and fitting them costs about as much as the pair)
            "keying": "pair",
            "target": {"circle": {
                "center": [crank.center[0] + leg.pedal_offset[0] + d[0],
                           crank.center[1] + leg.pedal_offset[1] + d[1]],
                "radius": crank.radius, "start_deg": start, "direction": crank.direction,
            }},
        });
        if let Some(name) = entry_names[i] {
            entry["name"] = json!(name);
        }
        iks.push(entry);
        let p = format!("legs[{i}]");
        let angle = format!("crank.start_deg + {p}.phase_deg");
        for bone in [&hip, &thigh, &shin, &crank_arm, &pedal] {
            named.push((bone.clone(), "", p.clone()));
        }
        named.push((hip.clone(), ".at", format!("{p}.hip{{k}}")));
        named.push((
            hip.clone(),
            ".depth_offset",
            format!("{p}.depth_offset{{k}}"),
        ));
        named.push((
            crank_arm.clone(),
            ".at",
            format!("crank.center{{k}} - {p}.hip{{k}}"),
        ));
        named.push((crank_arm.clone(), ".angle", angle.clone()));
        named.push((pedal.clone(), ".at", "crank.radius".into()));
        named.push((pedal.clone(), ".angle", angle.clone()));
        named.push((thigh.clone(), ".length", format!("{p}.thigh")));
        named.push((shin.clone(), ".length", format!("{p}.shin")));
        sources.push(Source {
            at: format!("ik[{i}]"),
            from: p.clone(),
        });
        sources.push(Source {
            at: format!("ik[{i}].target.circle.center"),
            from: format!("crank.center{{k}} + {p}.pedal_offset{{k}} + {p}.depth_offset{{k}}"),
        });
        sources.push(Source {
            at: format!("ik[{i}].target.circle.radius"),
            from: "crank.radius".into(),
        });
        sources.push(Source {
            at: format!("ik[{i}].target.circle.start_deg"),
            from: angle,
        });
        part_from.push(format!("crank.center + {p}.depth_offset, crank.radius"));
    }
    // legs are listed front to back, bones drawn back to front; the torso
    // between the far legs and the near one
    let mut bones: Vec<Value> = Vec::new();
    let near = sides.remove(0);
    for side in sides.into_iter().rev() {
        bones.extend(side);
    }
    // with every leg drawn at a depth offset, the chainring turns on a bone
    // of its own, `crank`, between the far legs and the near one
    let ring = ring.unwrap_or_else(|| {
        let ring = names.take("crank".into(), 0, "crank");
        let from = below_a_turn(crank.start_deg);
        let turn = [[0.0, from], [1.0, from + 360.0 * sign]];
        bones.push(json!({"name": ring, "at": crank.center, "length": 0,
                          "angle": {"track": {"keys": turn, "ease": "linear"}}}));
        named.push((ring.clone(), "", "crank".into()));
        ring
    });
    let mut chains = file.chains.clone();
    for (i, ch) in chains.iter_mut().enumerate() {
        if ch.anchor.bone.is_none() {
            let at = match &ch.anchor.at {
                Some(crate::figure::file::AtFile::Offset(p)) => *p,
                _ => unreachable!("a validated cycling rig anchors its chains at points"),
            };
            let name = names.take(format!("{}_anchor", ch.name), i, "anchor");
            bones.push(json!({"name": name, "at": at, "length": 0}));
            named.push((name.clone(), "", format!("chains[{i}].anchor.at")));
            ch.anchor.bone = Some(name);
            ch.anchor.at = Some(crate::figure::file::AtFile::Named(
                crate::figure::file::AtName::Origin,
            ));
        }
    }
    if let Some(t) = &file.torso {
        let up = Vec2::new(t.neck[0] - t.hip[0], t.neck[1] - t.hip[1]);
        let width = t.width.unwrap_or(14.0);
        let torso = names.take("torso".into(), 0, "torso");
        let head = names.take("head".into(), 0, "head");
        let skin = json!({"width": width, "stroke": CHAIN_COLOURS[0]});
        bones.push(json!({"name": torso, "at": t.hip, "length": up.length(),
                          "angle": {"const_deg": up.y.atan2(up.x).to_degrees()}, "style": skin}));
        // the head's centre sits past the neck by its radius and half the
        // torso's width (`figure::chain::validate_torso`)
        bones.push(
            json!({"name": head, "parent": torso, "length": t.head_radius + width * 0.5,
                          "head_radius": t.head_radius, "style": skin}),
        );
        named.push((torso.clone(), "", "torso".into()));
        named.push((torso, ".length", "torso.neck - torso.hip".into()));
        named.push((head.clone(), "", "torso".into()));
        named.push((
            head,
            ".length",
            "torso.head_radius + torso.width / 2".into(),
        ));
    }
    bones.extend(near);
    // the bicycle: the seat tube from the
    // first leg's hip to the crank centre and the chainring behind the
    // figure, each pedal's block carried by its pedal bone
    let c = Vec2::new(crank.center[0], crank.center[1]);
    let seat = Vec2::new(file.legs[0].hip[0], file.legs[0].hip[1]);
    let frame = line_d(seat, c);
    let mut scene = vec![
        json!({"name": "frame", "d": frame,
               "style": {"stroke": FRAME, "width": quantize((crank.radius * 0.16).max(2.0), 1)}}),
        json!({"name": "chainring", "bone": ring, "d": circle_d(c, quantize(crank.radius * 0.45, LEN_DECIMALS)),
               "style": {"stroke": RING, "width": 3, "dash": [6, 4]}}),
    ];
    let mut scene_from = vec![
        "legs[0].hip, crank.center, crank.radius".to_string(),
        "crank.center, crank.radius".to_string(),
    ];
    for (i, (bone, d, width)) in arms.into_iter().enumerate() {
        let name = names.take(format!("{bone}_arm"), i, "arm");
        scene.push(json!({"name": name, "bone": bone, "d": d,
                          "style": {"stroke": ARM, "width": width}}));
        scene_from.push(part_from[i].clone());
    }
    for (i, (pedal, (d, h))) in blocks.into_iter().enumerate() {
        let name = names.take(format!("{pedal}_block"), i, "block");
        scene.push(json!({"name": name, "bone": pedal, "d": d,
                          "style": {"stroke": PEDAL, "width": h}}));
        scene_from.push(format!("{}, legs[{i}].thigh, legs[{i}].shin", part_from[i]));
    }
    sources.extend(bone_sources(&bones, named));
    sources.extend(scene_from.into_iter().enumerate().map(|(i, from)| Source {
        at: format!("scene[{i}]"),
        from,
    }));
    let mut out = tree(file, bones, iks);
    // the pedal blocks show where the feet go: no target discs
    out.style = Some(crate::figure::style::RigStyleFile::Custom(
        crate::figure::style::StyleOverridesFile {
            look: Some("limbs".into()),
            joint_fill: Some("none".into()),
            ..Default::default()
        },
    ));
    out.chains = chains;
    out.scene = serde_json::from_value(Value::Array(scene)).expect("well-formed scene parts");
    Lowered { file: out, sources }
}

/// The colours of the drawing cycling rigs had before they baked as bone
/// trees (its `rb-arm`, `rb-frame`, `rb-ring` and `rb-pedal` rules).
const ARM: &str = "#4a4a4a";
const FRAME: &str = "#b23a48";
const RING: &str = "#6b6b6b";
const PEDAL: &str = "#1d1d1d";

/// A straight line from `a` to `b` as path data.
fn line_d(a: Vec2, b: Vec2) -> String {
    format!(
        "M{} {}L{} {}",
        fmt_len(a.x),
        fmt_len(a.y),
        fmt_len(b.x),
        fmt_len(b.y)
    )
}

/// A circle as path data (two arcs).
fn circle_d(c: Vec2, r: f64) -> String {
    let (x0, x1, y) = (fmt_len(c.x - r), fmt_len(c.x + r), fmt_len(c.y));
    let r = fmt_len(r);
    format!("M{x1} {y}A{r} {r} 0 1 1 {x0} {y}A{r} {r} 0 1 1 {x1} {y}Z")
}

/// A level `w` × `h` block with round ends centred on `at`: path data of
/// the line between its end circles' centres, and the stroke width `h`
/// (a part's stroke has round caps, so the stroke is the block).
fn capsule(at: Vec2, w: f64, h: f64) -> (String, f64) {
    let r = h / 2.0;
    let (x0, x1) = (fmt_len(at.x - w / 2.0 + r), fmt_len(at.x + w / 2.0 - r));
    let y = fmt_len(at.y);
    (format!("M{x0} {y}L{x1} {y}"), h)
}

#[cfg(test)]
mod tests {
    use super::below_a_turn;

    /// An angle below a turn is kept as written; a larger one is reduced
    /// exactly, keeping its sign, to the same direction; a whole number of
    /// turns is 0, never -0.
    #[test]
    fn angles_are_reduced_below_a_turn_to_the_same_direction() {
        for a in [0.0, 37.5, -90.0, 180.0, 270.0, -359.75, 359.0] {
            assert_eq!(below_a_turn(a), a);
        }
        for (a, want) in [
            (360.0, 0.0_f64),
            (-360.0, 0.0),
            (999_999.0, 279.0),
            (-999_999.0, -279.0),
            (1.0e6, 280.0),
            (1_999_998.0, 198.0),
            (2777.0 * 360.0, 0.0),
        ] {
            let got = below_a_turn(a);
            assert_eq!(got.to_bits(), want.to_bits(), "{a}");
            let (s, c) = (a.to_radians().sin_cos(), got.to_radians().sin_cos());
            assert!((s.0 - c.0).abs() < 1e-9 && (s.1 - c.1).abs() < 1e-9, "{a}");
        }
    }
}
