//! Tolerance fitting at 0.1 px for every example cycling rig (`crank` +
//! `legs`, baked as the bone tree it loads as), css (cubic) and smil
//! (linear): the whole `bake_rig` (fit, independent re-measure, emit).
//!
//! Run: `cargo bench --bench fit`

use criterion::{Criterion, criterion_group, criterion_main};
use rigbake::bake::{BakeOptions, Keying};
use rigbake::fit::Fit;
use rigbake::{Route, rig};
use std::hint::black_box;

fn fit_examples(c: &mut Criterion) {
    let mut g = c.benchmark_group("fit tolerance 0.1");
    g.sample_size(10);
    let mut paths: Vec<_> = std::fs::read_dir("rigs")
        .expect("run from the repository root")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    for path in paths {
        let text = std::fs::read_to_string(&path).unwrap();
        if rig::parse(&text).unwrap().legs.is_empty() {
            continue;
        }
        let rig = rig::load(&text).unwrap();
        for (route, fit) in [(Route::Css, Fit::Cubic), (Route::Smil, Fit::Linear)] {
            let opts = BakeOptions {
                route,
                keying: Keying::Tolerance(0.1),
                fit,
                shortest_shape: false,
            };
            g.bench_function(format!("{} {}", rig.name, route.as_str()), |b| {
                b.iter(|| rigbake::bake_rig(black_box(&rig), black_box(&opts)))
            });
        }
    }
    g.finish();
}

criterion_group!(benches, fit_examples);
criterion_main!(benches);
