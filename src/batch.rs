//! Several rigs in one `bake`, `check` or `gallery` call: read and
//! validate every rig, then bake them on all cores, streaming each finished
//! bake to its staged output instead of holding the batch in memory.
//!
//! # Method
//!
//! [`load_all`] reads and validates every rig file first (cheap) and keeps
//! only each rig's name ([`Checked`]): the output names follow from it, so
//! `bake` can refuse a same-file conflict ([`output::check_distinct`])
//! before anything is baked or written. [`bake_each`] then bakes rig after
//! rig in parallel (rayon's global pool: every core, or
//! `RAYON_NUM_THREADS`), reading and validating each rig again from its
//! file as its bake starts and dropping it when its bake is done, and hands
//! each finished bake to a sink on the worker thread: `bake` stages the
//! SVG into its temporary file at once ([`output::Transaction::stage`])
//! and keeps only what it prints or writes of the report (nothing with
//! `--quiet`), `check` keeps each comparison with the thresholds (every
//! probe only for the JSON and JUnit formats), `gallery` stages the SVG
//! and keeps the report and period for its page. So memory holds a few
//! rigs and their bakes (one per thread) and what is printed, whatever
//! the batch size. (A batch of one rig keeps it from the first read: one
//! rig is the bound anyway.)
//!
//! A rig file rewritten between the two reads is baked as read the second
//! time, validated again (an error then is the rig's error, as in the
//! first pass); if its name changed, its outputs would no longer have the
//! names checked, so the batch is refused ([`reloaded`]).
//!
//! Results come back in input order, and so do errors: the error a user
//! sees is the first failing rig in input order, whatever the thread count
//! or completion order ([`ordered`]). Once a rig fails, rigs after it are
//! skipped; rigs before it still finish (one of them may fail first). A
//! failed batch drops every staged temporary and commits nothing.
//!
//! Memory freed by one bake is kept for the next ([`keep_freed_memory`]).

use super::output::{self, Input, Output};
pub(crate) use super::workflow::Progress;
use super::{BakeArgs, Exit, report_to_stdout};
use anyhow::{Result, bail};
use rayon::prelude::*;
use rigbake::report::{self, Report};
use rigbake::{Baked, Route, rig};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// `f(0)`, …, `f(n - 1)` on rayon's pool, returned in index order; the
/// error of the lowest failing index, if any. Once an index fails, higher
/// ones that have not started are skipped (lower ones run to the end).
pub(crate) fn ordered<T: Send>(n: usize, f: impl Fn(usize) -> Result<T> + Sync) -> Result<Vec<T>> {
    if n <= 1 {
        // one rig: no thread pool to start (its threads would cost more
        // CPU than a small bake)
        return (0..n).map(f).collect();
    }
    let first_failure = AtomicUsize::new(usize::MAX);
    let results: Vec<Option<Result<T>>> = (0..n)
        .into_par_iter()
        .map(|i| {
            if i > first_failure.load(Ordering::Relaxed) {
                return None;
            }
            let r = f(i);
            if r.is_err() {
                first_failure.fetch_min(i, Ordering::Relaxed);
            }
            Some(r)
        })
        .collect();
    // An index is only skipped after a lower one failed, so the first
    // failure comes before every skipped index.
    let mut out = Vec::with_capacity(n);
    for r in results {
        match r {
            Some(Ok(t)) => out.push(t),
            Some(Err(e)) => return Err(e),
            None => unreachable!("a rig was skipped without an earlier failure"),
        }
    }
    Ok(out)
}

/// What the first pass keeps of one validated rig.
pub(crate) struct Checked {
    /// The rig's name (`<name>-<clip>` with `--clip`), which its outputs'
    /// names follow.
    pub(crate) name: String,
    /// The rig itself, kept only in a batch of one rig (boxed: a batch of
    /// thousands holds a pointer per rig, not a `Rig`'s fields).
    kept: Option<Box<rig::Rig>>,
}

/// Checks `--keys` and `--tolerance`, then reads and validates every rig
/// (in parallel) and keeps its name; the first bad rig in input order is
/// the error. A batch of one rig keeps the rig, which [`bake_each`] then
/// bakes without reading its file again.
pub(crate) fn load_all(paths: &[PathBuf], args: &BakeArgs) -> Result<Vec<Checked>> {
    if let Some(k) = args.keys {
        rig::check_keys("--keys", k)?;
    }
    if let Some(px) = args.tolerance {
        rig::check_tolerance("--tolerance", px)?;
    }
    let keep = paths.len() == 1;
    ordered(paths.len(), |i| {
        let rig = args.load(&paths[i])?;
        Ok(Checked {
            name: rig.name.clone(),
            kept: keep.then(|| Box::new(rig)),
        })
    })
}

/// Rig `path` read and validated again for its bake: the error of a file
/// that no longer reads or validates, and a refusal when its name is no
/// longer `checked.name` (its outputs were planned under that name).
fn reloaded(path: &Path, checked: &Checked, args: &BakeArgs) -> Result<rig::Rig> {
    let rig = args.load(path)?;
    if rig.name != checked.name {
        bail!(
            "{}: changed while the batch ran: now named {}, not {} as when its output names were checked; nothing written",
            rigbake::input::shown_path(path),
            rigbake::input::quoted(&rig.name, '"'),
            rigbake::input::quoted(&checked.name, '"'),
        );
    }
    Ok(rig)
}

/// How much freed memory at the top of a thread's heap the allocator keeps
/// for the bakes to come, bytes. glibc hands it back to the system once
/// 128 KiB of it are free, and each bake of a batch then faults the same
/// pages in again: the 1,000 generated rigs of `benches/batch.rs` in one
/// call took 139,091 page faults and 0.93 s of system time (2.02 s wall),
/// and with 4 MiB kept 2,241 and 0.36 s (1.76 s wall; `perf stat`, one run
/// each, the threshold set by `GLIBC_TUNABLES=glibc.malloc.trim_threshold=`
/// for the trial). The peak is still a bake per thread (300 of those rigs:
/// 11,564 KB with 4 MiB kept, 11,500 KB with 16 MiB; `/usr/bin/time`).
const KEPT_FREE_BYTES: i32 = 4 << 20;

/// Keeps up to [`KEPT_FREE_BYTES`] of a batch's freed memory for its next
/// bakes instead of returning it at once (glibc; elsewhere a no-op).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub(crate) fn keep_freed_memory() {
    // SAFETY: mallopt(3) only sets an allocator parameter, under the
    // allocator's own lock; no memory is touched.
    unsafe {
        libc::mallopt(libc::M_TRIM_THRESHOLD, KEPT_FREE_BYTES);
    }
}

/// Keeps freed memory for the next bakes (only glibc's allocator is tuned).
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub(crate) fn keep_freed_memory() {}

/// Bakes every rig for every asked route in parallel and passes each bake
/// to `sink(k, bake)` on the worker that made it, `k` counting outputs in
/// input order (rig by rig, each rig's routes in order); returns the sink's
/// results in that order. Each rig is read again from its path as its bake
/// starts ([`reloaded`]; kept by [`load_all`] in a batch of one) and
/// dropped when its routes are baked. Each rig started steps `bar` (for
/// several rigs on a terminal, a redrawn counter of the rigs started; see
/// [`Progress`]), which the caller drops before printing.
pub(crate) fn bake_each<T: Send>(
    paths: &[PathBuf],
    rigs: &[Checked],
    args: &BakeArgs,
    bar: &Mutex<Progress>,
    sink: impl Fn(usize, Baked) -> Result<T> + Sync,
) -> Result<Vec<T>> {
    let routes = args.route.routes();
    let per_rig = ordered(rigs.len(), |i| {
        bar.lock()
            .unwrap_or_else(|e| e.into_inner())
            .step(&paths[i]);
        let read;
        let rig = match &rigs[i].kept {
            Some(rig) => rig,
            None => {
                read = reloaded(&paths[i], &rigs[i], args)?;
                &read
            }
        };
        routes
            .iter()
            .enumerate()
            .map(|(j, &route)| {
                let baked = bake_kept((&paths[i], rig), args, route)?;
                debug_assert_eq!(
                    baked.clip.name, rig.name,
                    "output names follow the rig name"
                );
                sink(i * routes.len() + j, baked)
            })
            .collect::<Result<Vec<T>>>()
    })?;
    Ok(per_rig.into_iter().flatten().collect())
}

/// Bake `rig` (read from `path`) on `route` as `args` ask, refused where
/// it misses a tolerance asked for by a flag or by the rig
/// ([`super::workflow::tolerance_kept`], the message led by the file as
/// every input error is): every command that bakes (bake, check, gallery,
/// preview, `--art`, the watcher) bakes through here.
pub(crate) fn bake_kept(
    (path, rig): (&Path, &rig::Rig),
    args: &BakeArgs,
    route: Route,
) -> Result<Baked> {
    let baked = rigbake::bake_rig(rig, &args.options(rig, route));
    super::workflow::tolerance_kept(&baked.report)
        .map_err(|e| e.context(rigbake::input::shown_path(path)))?;
    Ok(baked)
}

/// The file a bake of rig `name` on `route` is written to in a directory.
pub(crate) fn file_name(name: &str, route: Route) -> String {
    match route {
        Route::Css => format!("{name}.svg"),
        Route::Smil => format!("{name}.smil.svg"),
    }
}

/// Whether `-o` names one SVG file: a name ending in `.svg` (in any case)
/// that is not an existing directory and not written as one (with a
/// trailing `/`). Any other name is a directory.
pub(crate) fn names_svg_file(output: &Path) -> bool {
    output
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("svg"))
        && !output.as_os_str().as_encoded_bytes().ends_with(b"/")
        && !output.is_dir()
}

/// Where `bake -o` sends the SVGs.
enum Dest<'a> {
    Stdout,
    File(&'a Path),
    Dir(&'a Path),
}

impl<'a> Dest<'a> {
    /// `-o` for `outputs` SVGs: `-`, one .svg file, or a directory.
    fn of(output: &'a Path, outputs: usize) -> Result<Self> {
        let to_stdout = output == Path::new("-");
        let single_file = !to_stdout && names_svg_file(output);
        if (to_stdout || single_file) && outputs != 1 {
            bail!(
                "-o {}: {} outputs (rigs x routes) need a directory, not a single file",
                output.display(),
                outputs
            );
        }
        if to_stdout {
            return Ok(Dest::Stdout);
        }
        if single_file {
            return Ok(Dest::File(output));
        }
        if output.exists() && !output.is_dir() {
            // (what it is: a file, or a device such as /dev/null)
            let what = std::fs::metadata(output)
                .ok()
                .and_then(|m| rigbake::input::not_a_file(&m))
                .unwrap_or("a file");
            if outputs == 1 {
                bail!(
                    "-o {}: is {what}, and a name not ending in .svg is a directory; name a .svg file for the one output",
                    output.display()
                );
            }
            bail!(
                "-o {}: is {what}, but {outputs} outputs need a directory",
                output.display()
            );
        }
        Ok(Dest::Dir(output))
    }
}

/// What `bake` keeps of one finished bake until the batch is done: only
/// what it prints or writes then, so that a batch's memory grows by a
/// staged file's name per output, not by its report (a generated cycling
/// rig's report is about 4 KB as JSON).
struct Done {
    /// The summary printed (not with `--quiet`).
    text: Option<String>,
    /// The report, for `--report` only (boxed: a `Done` kept for every
    /// output is then small when none is asked).
    report: Option<Box<Report>>,
    staged: Option<output::Staged>,
    /// The SVG itself, only for `-o -` (one output).
    svg: Option<String>,
}

/// `bake` (without `--art`): validate every rig, refuse same-file outputs,
/// bake in parallel staging each SVG as it is made, then commit every
/// output (and the report) all together; print the summary in input order.
pub(crate) fn cmd_bake(
    rigs: &[PathBuf],
    output: &Path,
    args: &BakeArgs,
    report_path: Option<&Path>,
    quiet: bool,
) -> Result<Exit> {
    let report_stdout = report_to_stdout(output, report_path)?;
    let bar = Mutex::new(Progress::new(rigs, !quiet));
    let loaded = load_all(rigs, args)?;
    let routes = args.route.routes();
    let dest = Dest::of(output, loaded.len() * routes.len())?;
    let targets: Vec<PathBuf> = match dest {
        Dest::Stdout => Vec::new(),
        Dest::File(p) => vec![p.to_path_buf()],
        Dest::Dir(d) => loaded
            .iter()
            .flat_map(|r| {
                routes
                    .iter()
                    .map(|&route| d.join(file_name(&r.name, route)))
            })
            .collect(),
    };
    let report_file = report_path.filter(|_| !report_stdout);
    let inputs: Vec<Input> = Input::rigs(rigs);
    {
        // (the bytes are not known yet: only the names are compared)
        let mut planned: Vec<Output> = targets.iter().map(|t| Output::new("-o", t, &[])).collect();
        planned.extend(report_file.map(|p| Output::new("--report", p, &[])));
        output::check_distinct(&planned, &inputs)?;
    }
    let to_stdout = matches!(dest, Dest::Stdout);
    let json_asked = report_file.is_some() || report_stdout;
    let tx = output::Transaction::new();
    let mut done = bake_each(rigs, &loaded, args, &bar, |k, b| {
        let staged = match targets.get(k) {
            Some(t) => tx.stage(&Output::new("-o", t, b.svg.as_bytes()))?,
            None => None,
        };
        let svg = to_stdout.then_some(b.svg);
        Ok(Done {
            text: (!quiet).then(|| b.report.to_text()),
            report: json_asked.then(|| Box::new(b.report)),
            staged,
            svg,
        })
    })?;
    drop(bar);
    let svg = done.first_mut().and_then(|d| d.svg.take());
    let mut staged = Vec::with_capacity(done.len() + 1);
    let mut reports = Vec::new();
    let mut text = String::new();
    for d in done {
        staged.extend(d.staged);
        reports.extend(d.report.map(|r| *r));
        text.extend(d.text);
    }
    // the report is made only when asked (empty otherwise): for thousands
    // of rigs it is megabytes
    let json = if json_asked {
        report::to_json(&reports)
    } else {
        String::new()
    };
    if let Some(p) = report_file {
        staged.extend(tx.stage(&Output::new("--report", p, json.as_bytes()))?);
    }
    // standard output before the files (see `output`): if it cannot take
    // what is printed, nothing is written
    if let Some(svg) = &svg {
        output::stdout(svg)?;
    }
    if report_stdout {
        output::stdout(&json)?;
    }
    if !quiet {
        if to_stdout || report_stdout {
            eprint!("{text}");
        } else {
            output::stdout(&text)?;
        }
    }
    tx.commit(staged)?;
    Ok(Exit::Ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordered_keeps_input_order_and_reports_the_first_failure() {
        let squares = ordered(100, |i| Ok(i * i)).unwrap();
        assert_eq!(squares, (0..100).map(|i| i * i).collect::<Vec<_>>());
        // whatever finishes first, the lowest failing index is the error
        for _ in 0..20 {
            let e = ordered(200, |i| {
                if i % 50 == 37 {
                    // the later failures finish first
                    std::thread::sleep(std::time::Duration::from_micros((200 - i) as u64 * 20));
                    bail!("failed at {i}")
                }
                Ok(i)
            })
            .unwrap_err();
            assert_eq!(e.to_string(), "failed at 37");
        }
    }

    /// One rig (or none) runs on the calling thread, with the same results.
    #[test]
    fn one_item_runs_on_the_calling_thread() {
        let caller = std::thread::current().id();
        assert_eq!(
            ordered(1, |i| Ok((i, std::thread::current().id()))).unwrap(),
            vec![(0, caller)]
        );
        assert!(ordered(0, Ok).unwrap().is_empty());
        let e = ordered(1, |_| -> Result<()> { bail!("failed at 0") }).unwrap_err();
        assert_eq!(e.to_string(), "failed at 0");
    }
}
