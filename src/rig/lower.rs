//! `ik_chains` lowered into the skeleton.
//!
//! A validated `ik_chains` file is rewritten as the bone tree that solves
//! the same pose: each chain a root bone at its root (carried by its own
//! `move` when the root moves), a thigh and a shin, and an `ik` entry,
//! named as the chain, aiming the shin's tip at the chain's target. The
//! chain's `depth_offset` moves the root and the target alike. The tree is
//! drawn in the `limbs` look at the chain's widths and colours, so the
//! lowered file draws what the chain file always drew, and its probes and
//! report lines keep the chain's names (`<chain>-ankle`, `<chain>-target`).
//!
//! The chain file is validated first ([`super::validate_chains`]), so every
//! error names the user's own JSON path (`ik_chains[1].thigh`); the tree
//! built here is then valid by construction.

use super::RigFile;
use crate::chain::IkChain;
use crate::emit::style::{CHAIN_COLOURS, limb_width};
use crate::geom::Vec2;
use serde_json::{Value, json};
use std::collections::HashSet;

/// The root, thigh and shin bone names of every chain: `<chain>_hip`,
/// `<chain>_thigh`, `<chain>_shin`, unless such a name is longer than a
/// name may be (32) or taken (by a chain, whose `ik` entry carries its
/// name, or by an earlier bone; chains `a` and `a_thigh` would clash): then
/// `c<i>_<part>`, with `_<k>` added until it is free.
fn bone_names(chains: &[crate::chain::IkChainFile]) -> Vec<[String; 3]> {
    let mut taken: HashSet<String> = chains.iter().map(|c| c.name.clone()).collect();
    let mut out = Vec::with_capacity(chains.len());
    for (i, c) in chains.iter().enumerate() {
        out.push(["hip", "thigh", "shin"].map(|part| {
            let mut name = format!("{}_{part}", c.name);
            let mut k = 0;
            while name.len() > 32 || taken.contains(&name) {
                name = match k {
                    0 => format!("c{i}_{part}"),
                    _ => format!("c{i}_{part}_{k}"),
                };
                k += 1;
            }
            taken.insert(name.clone());
            name
        }));
    }
    out
}

/// The bone-tree spelling of `file` (an `ik_chains` rig), given its
/// validated chains (their roots at t = 0 place the root bones).
pub(crate) fn as_bones(file: &RigFile, chains: &[IkChain]) -> RigFile {
    let mut limbs: Vec<[Value; 3]> = Vec::new();
    let mut iks = Vec::new();
    let names = bone_names(&file.ik_chains);
    for (i, ((c, vc), [hip, thigh, shin])) in
        file.ik_chains.iter().zip(chains).zip(names).enumerate()
    {
        let off = c.depth_offset;
        let r0: Vec2 = vc.root.at(0.0);
        let mut root = json!({"name": hip, "at": [r0.x + off[0], r0.y + off[1]], "length": 0});
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
    }
    // chains are listed front to back, bones drawn back to front
    let bones: Vec<Value> = limbs.into_iter().rev().flatten().collect();
    let tree = json!({
        "name": file.name,
        "view_box": file.view_box,
        "period_s": file.period_s,
        "bones": bones,
        "ik": iks,
        "style": "limbs",
    });
    let mut out: RigFile =
        serde_json::from_value(tree).expect("a lowered chain file is well formed");
    out.keys = file.keys;
    out.tolerance_px = file.tolerance_px;
    out.scene = file.scene.clone();
    out.ground = file.ground.clone();
    out
}
