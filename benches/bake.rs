//! Bake + measure timings for `rigs/seed-nested.json` with 10 uniform linear
//! keys: the whole [`rigbake::bake_rig`] pipeline (sample, IK, bake, emit,
//! independent measure, report) on each route, and the measure stage's
//! walk alone on an already baked clip (every probe at every sample time).
//!
//! Run: `cargo bench --bench bake` (quicker: append
//! `-- --warm-up-time 1 --measurement-time 3`).

use criterion::{Criterion, criterion_group, criterion_main};
use rigbake::bake::{BakeOptions, Keying};
use rigbake::fit::Fit;
use rigbake::rig::{self, Rig};
use rigbake::{Route, bake_rig, measure};
use std::hint::black_box;

fn seed_nested() -> Rig {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/rigs/seed-nested.json");
    let text = std::fs::read_to_string(path).expect("rigs/seed-nested.json");
    rig::load(&text).expect("seed-nested validates")
}

fn options(route: Route) -> BakeOptions {
    BakeOptions {
        route,
        keying: Keying::Uniform(10),
        fit: Fit::Linear,
        shortest_shape: false,
    }
}

fn bake_and_measure(c: &mut Criterion) {
    let rig = seed_nested();
    for route in [Route::Css, Route::Smil] {
        let opts = options(route);
        c.bench_function(
            &format!("bake+measure seed-nested ({}, 10 keys)", route.as_str()),
            |b| b.iter(|| bake_rig(black_box(&rig), black_box(&opts))),
        );
    }
    for route in [Route::Css, Route::Smil] {
        let clip = bake_rig(&rig, &options(route)).clip;
        c.bench_function(
            &format!("measure seed-nested ({}, 10 keys)", route.as_str()),
            |b| {
                let probes: Vec<String> = measure::probes_at(&clip, 0.0).into_keys().collect();
                b.iter(|| {
                    let mut sum = 0.0;
                    measure::sample_probes(black_box(&clip), &probes, |_, at| sum += at[0].x);
                    sum
                })
            },
        );
    }
}

criterion_group!(benches, bake_and_measure);
criterion_main!(benches);
