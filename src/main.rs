//! The `rigbake` command line: parse arguments, read rig files, call the
//! library, write outputs atomically, map outcomes to exit codes.

use anyhow::{Context, Result, bail};
use clap::{CommandFactory, Parser, Subcommand, ValueEnum};
use output::{Input, Output};
use rigbake::bake::BakeOptions;
use rigbake::fit::Fit;
use rigbake::report::check::{Case, Check, Thresholds};
use rigbake::{Route, input, rig};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use usage::{key_range, whole_between};

mod batch;
mod output;
mod usage;
mod workflow;

/// Bake procedural 2D character motion (a cyclist's legs on the pedals,
/// walking and running stick figures, bone trees with eased clips, hair and
/// springs) into a self-contained animated SVG, and measure how far the
/// written keyframes let each ankle, effector or bone tip drift from the
/// ideal motion.
///
/// Examples:
///   rigbake bake rigs/seed-nested.json -o out/           # writes out/seed-nested.svg
///   rigbake bake rigs/*.json --route both -o out/        # css and smil for every rig
///   rigbake check rigs/*.json --max-error 4              # exit 1 if any ankle drifts > 4 px
#[derive(Parser, Debug)]
#[command(name = "rigbake", version, about, long_about, verbatim_doc_comment)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Bake rigs into animated SVG files and print a per-leg error summary.
    ///
    /// Output names: <name>.svg (css route), <name>.smil.svg (smil route),
    /// where <name> is the rig's "name" field. Every rig is validated first,
    /// then the rigs are baked in parallel (RAYON_NUM_THREADS sets the thread
    /// count); nothing is written unless every rig bakes (the error names the
    /// first bad rig in input order), and the files are replaced atomically
    /// and all together (temporary files + rename; if one cannot be
    /// replaced, the others keep their old bytes). A file that already holds
    /// the new bytes is not rewritten.
    Bake {
        /// Rig files (JSON).
        #[arg(required = true, value_name = "RIG")]
        rigs: Vec<PathBuf>,
        /// Output directory (created if missing), a single .svg file (one rig,
        /// one route; .SVG too), or `-` for standard output (summary then goes
        /// to stderr). Any other name is a directory: -o out.txt writes
        /// out.txt/<name>.svg, and so does a name ending in / (-o out.svg/).
        #[arg(short, long, value_name = "DIR|FILE|-", default_value = ".")]
        output: PathBuf,
        #[command(flatten)]
        bake: BakeArgs,
        /// Also write the JSON report here (one object for one output, an
        /// array otherwise); `-` prints it on standard output (the summary
        /// then goes to stderr; not with `-o -`).
        #[arg(long, value_name = "FILE.json|-")]
        report: Option<PathBuf>,
        /// Print nothing on success (also no progress line).
        #[arg(short, long)]
        quiet: bool,
        /// Animate an existing drawing instead of drawing the rig's own
        /// looks: parts marked by id or inkscape:label, as `rigbake template`
        /// names them (a bone tree: one per bone, named as the bone, a
        /// child inside its parent; cycling legs, as their tree: thigh-<leg>,
        /// shin-<leg> inside its thigh, optional pedal-<leg>, crank-<leg>,
        /// crank; joint markers); everything else is kept byte for byte. One rig, one
        /// clip (--clip), css route.
        #[arg(long, value_name = "DRAWING.svg")]
        art: Option<PathBuf>,
        /// Re-bake whenever a rig (or the --art drawing) is saved, printing the
        /// new summary or the error (the last good output is kept); Ctrl-C stops.
        #[arg(long)]
        watch: bool,
    },
    /// Print measured max error against keys per track for uniform and
    /// adaptive key placement, linear and cubic (every cell is a real bake).
    Sweep {
        /// Rig file (JSON).
        #[arg(value_name = "RIG")]
        rig: PathBuf,
        /// Key counts per track to try, inclusive (2 <= A <= B <= 400); on a bone
        /// tree the whole sweep stays within 48 bakes' work (docs/cli.md).
        #[arg(long, value_name = "A..B", default_value = "4..40", value_parser = key_range,
              allow_hyphen_values = true)]
        keys: (usize, usize),
        /// Which segment shapes to sweep (the smil route is linear except
        /// for bone trees).
        #[arg(long, value_enum, default_value_t = FitChoice::Both)]
        fit: FitChoice,
        /// Route to sweep.
        #[arg(long, value_enum, default_value_t = SweepRoute::Css)]
        route: SweepRoute,
        /// Also write the table as an SVG line chart (log-scale error axis).
        #[arg(long, value_name = "FILE.svg")]
        plot: Option<PathBuf>,
        /// Output format of the table.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Bake in memory and fail (exit 1) when any measured error exceeds a threshold:
    /// a leg's ankle, IK effector or target marker, a bone tip, a chain
    /// particle or a spring tip.
    Check {
        /// Rig files (JSON).
        #[arg(required = true, value_name = "RIG")]
        rigs: Vec<PathBuf>,
        /// Largest acceptable distance of any probe (ankle, effector, target
        /// marker, bone tip, particle) from its ideal, px (user units).
        #[arg(long, value_name = "PX", allow_hyphen_values = true)]
        max_error: f64,
        /// Largest acceptable foot slip over the ground, px per step, of a
        /// leg with a gait target and a ground.
        #[arg(long, value_name = "PX", default_value_t = Thresholds::DEFAULT_MAX_SLIP_PX,
              allow_hyphen_values = true)]
        max_slip: f64,
        /// Largest acceptable distance between the target a leg's gait asks
        /// for and the point its solver aims at (a `"reach": "pull"` target
        /// pulled back), px [default: --max-error].
        #[arg(long, value_name = "PX", allow_hyphen_values = true)]
        max_reach: Option<f64>,
        #[command(flatten)]
        bake: BakeArgs,
        /// Output format: text (the measurements, then `ok: …`), json (one
        /// object, schema/check.schema.json) or junit (JUnit XML). Exceeded
        /// thresholds are also listed on stderr.
        #[arg(long, value_enum, default_value_t = CheckFormat::Text)]
        format: CheckFormat,
        /// Print nothing (not even the exceeded thresholds): the exit code
        /// says it all (bad input is still reported on stderr).
        #[arg(short, long, conflicts_with = "format")]
        quiet: bool,
    },
    /// Print the JSON Schema (draft-07) of the rig file format.
    ///
    /// Point a rig's "$schema" field at a saved copy (the repository keeps
    /// one in schema/rig.schema.json) and editors autocomplete and check it.
    /// The schema covers field names, types and enum values; value rules
    /// (lengths at least 0.01, reachability) are checked by rigbake itself.
    Schema,
    /// Print a shell completion script for bash, zsh or fish.
    ///
    /// Example: rigbake completions bash > /etc/bash_completion.d/rigbake
    Completions {
        /// Target shell.
        #[arg(value_enum)]
        shell: ShellArg,
    },
    /// Render one period of a rig as a PNG strip of frames side by side
    /// (headless Chromium; set RIGBAKE_CHROMIUM to choose the executable).
    ///
    /// Frame i shows time period * i / frames. Each frame is 240 px wide.
    Preview {
        /// Rig file (JSON).
        #[arg(value_name = "RIG")]
        rig: PathBuf,
        /// The PNG to write (replaced atomically).
        #[arg(short, long, value_name = "FILE.png")]
        output: PathBuf,
        /// Number of frames, 1..=32.
        #[arg(long, value_name = "N", default_value_t = 8, allow_hyphen_values = true,
              value_parser = whole_between(1, workflow::MAX_PREVIEW_FRAMES))]
        frames: usize,
        /// Route to bake and seek.
        #[arg(long, value_enum, default_value_t = SweepRoute::Css)]
        route: SweepRoute,
        /// Preview this drawing animated by the rig, as `bake --art` writes it (css route).
        #[arg(long, value_name = "DRAWING.svg")]
        art: Option<PathBuf>,
        /// Preview only this clip of a bone-tree rig with `clips`.
        #[arg(long, value_name = "NAME")]
        clip: Option<String>,
    },
    /// Bake rigs on both routes into a directory with an index.html showing them all.
    ///
    /// The page shows every file animating (as <img>), its report figures
    /// (max error per probe, bytes) and a frame strip of one period per file
    /// (headless Chromium; without one the page says so).
    ///
    /// Example: rigbake gallery rigs/*.json -o out/   # then open out/index.html
    Gallery {
        /// Rig files (JSON).
        #[arg(required = true, value_name = "RIG")]
        rigs: Vec<PathBuf>,
        /// Output directory (created if missing): the SVG files, the strips
        /// (<file>.strip.png) and index.html, all replaced together.
        #[arg(short, long, value_name = "DIR", default_value = "out")]
        output: PathBuf,
    },
    /// Write a cycling or `ik_chains` rig as the bone tree that solves the same pose.
    ///
    /// The tree moves every hip, knee, ankle (and crank) as the rig does,
    /// at every time; it is a `bones` rig to extend: a torso, arms, a head
    /// on a spring, clips. Both kinds of rig load as this tree anyway, so
    /// the rig and its tree bake to the same bytes; a cycling rig's tree is
    /// drawn in the `limbs` look (legs, crank arms, pedal blocks, seat tube,
    /// a turning chainring), and a drawing for it (`thigh-<leg>`,
    /// `pedal-<leg>`, `crank-<leg>`, `crank`) bakes on either with `bake
    /// --art` (a `torso`'s head is a bone of its own: draw it from the neck
    /// in a group named `head`, as `rigbake template` does).
    ///
    /// Example: rigbake lower rigs/seed-nested.json -o rider.json
    Lower {
        /// Rig file (JSON): `crank` + `legs`, or `ik_chains`.
        #[arg(value_name = "RIG")]
        rig: PathBuf,
        /// The rig file to write (replaced atomically), or - for standard output.
        #[arg(short, long, value_name = "FILE.json", default_value = "-")]
        output: PathBuf,
    },
    /// Write a starter drawing of a rig's phase-0 pose to draw over (<name>.template.svg).
    ///
    /// One labelled group per part in the pose at t = 0 (Inkscape layers
    /// and labels, ids for Illustrator), joint markers on a hidden "guides"
    /// layer. Draw over it and bake it with `bake --art`.
    Template {
        /// Rig file (JSON).
        #[arg(value_name = "RIG")]
        rig: PathBuf,
        /// Output directory (created if missing), or the .svg file to write.
        #[arg(short, long, value_name = "DIR|FILE.svg", default_value = ".")]
        output: PathBuf,
        /// Draw t = 0 of this clip of a bone-tree rig with `clips` (the
        /// pose `bake --art --clip NAME` checks the drawing against),
        /// written as <name>-<clip>.template.svg; without it, the first
        /// clip's.
        #[arg(long, value_name = "NAME")]
        clip: Option<String>,
    },
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq)]
enum ShellArg {
    Bash,
    Zsh,
    Fish,
}

/// `--fit` of bake and check (the library's [`Fit`] knows nothing of the CLI).
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq)]
enum FitArg {
    /// Straight-line interpolation between keys.
    Linear,
    /// Exact cubic via `cubic-bezier(1/3, y1, 2/3, y2)`: Hermite (the curve's
    /// end slopes), an IK pair's fitted over each segment (least squares).
    Cubic,
    /// Per fitted channel of a bone tree (css route), cubic or linear keys,
    /// whichever writes fewer bytes within the same budget (linear ones as
    /// a `linear()` easing): the css default of a fitted bake. Elsewhere cubic.
    Shortest,
}

impl From<FitArg> for Fit {
    fn from(f: FitArg) -> Fit {
        match f {
            FitArg::Linear => Fit::Linear,
            FitArg::Cubic | FitArg::Shortest => Fit::Cubic,
        }
    }
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq)]
enum FitChoice {
    Linear,
    Cubic,
    Both,
}

#[derive(clap::Args, Debug)]
struct BakeArgs {
    /// css: nested groups rotated by @keyframes (pausable by reduced-motion);
    /// smil: SMIL animation (a bone tree's groups by <animateTransform>, a
    /// cycling leg, or an `ik` limb with "smil": "morph", as one path
    /// morphed by <animate d>); both: one file each.
    #[arg(long, value_enum, default_value_t = RouteArg::Css)]
    route: RouteArg,
    /// Uniform keys per period (overrides the rig's "keys" and any
    /// tolerance): 2 to 10000, within the work estimate of the bone tree
    /// the rig loads as (cycling and ik_chains rigs load as one; docs/cli.md).
    #[arg(long, value_name = "N", conflicts_with = "tolerance", allow_hyphen_values = true,
          value_parser = whole_between(2, rig::MAX_KEYS))]
    keys: Option<usize>,
    /// Place the fewest keys found that keep every probe (ankle, effector,
    /// target marker, bone tip, particle) within PX of its ideal (overrides the rig's
    /// "tolerance_px"; 0.01 to 1000000).
    #[arg(long, value_name = "PX", allow_hyphen_values = true)]
    tolerance: Option<f64>,
    /// Segment shape: linear, or exact cubic via cubic-bezier(1/3,y1,2/3,y2);
    /// shortest: per channel (or IK limb) on the css route, whichever of
    /// the two writes fewer bytes. [default when fitting a tolerance:
    /// shortest on css; on smil cubic keySplines, linear for a limb's d
    /// morph. With --keys: linear]
    #[arg(long, value_enum)]
    fit: Option<FitArg>,
    /// Bake only this clip of a bone-tree rig with `clips`, as its own file
    /// named <name>-<clip>.svg (the smil route otherwise writes the first clip).
    #[arg(long, value_name = "NAME")]
    clip: Option<String>,
    /// Start every class, @keyframes name and id the file defines with P-
    /// (default: five letters and digits hashed from the file's content,
    /// which holds the rig's name: unique per file, so files can share an
    /// HTML page). One rig and one route only.
    #[arg(long, value_name = "P")]
    prefix: Option<String>,
}

impl BakeArgs {
    /// Keying and fit for one rig and route: --keys, then --tolerance, then
    /// the rig's tolerance_px, then the rig's keys.
    fn options(&self, rig: &rig::Rig, route: Route) -> BakeOptions {
        let mut o = BakeOptions::resolve(
            rig,
            route,
            self.keys,
            self.tolerance,
            self.fit.map(Fit::from),
        );
        if self.fit == Some(FitArg::Shortest) && route == Route::Css {
            o.shortest_shape = true;
        }
        o
    }

    /// Read and validate one rig, keeping only `--clip` when given.
    fn load(&self, path: &Path) -> Result<rig::Rig> {
        self.load_text(path, &read_rig(path)?, self.clip.as_deref())
    }

    /// [`BakeArgs::load`] for `--art`, whose drawing plays one clip: a rig
    /// with several `clips` and no `--clip` loads its first clip only, as
    /// `--clip FIRST` would (named `<name>-<clip>`), with a note, so the
    /// file and its report speak of the clip the drawing plays.
    fn load_art(&self, path: &Path) -> Result<rig::Rig> {
        let text = read_rig(path)?;
        // (a file that does not parse is reported by the load below)
        let names: Vec<String> = match (&self.clip, rig::parse(&text)) {
            (None, Ok(file)) if file.clips.len() > 1 => {
                file.clips.into_iter().map(|c| c.name).collect()
            }
            _ => return self.load_text(path, &text, self.clip.as_deref()),
        };
        let first = &names[0];
        let mut one = self.load_text(path, &text, Some(first))?;
        one.notes.push(format!(
            "--art: a drawing plays one clip; this rig has {}: baked {first:?} (its first) as with --clip {first}; bake the others with --clip NAME, one file each",
            input::escaped(&names.join(", "))
        ));
        Ok(one)
    }

    /// Validate the rig text read from `path`, keeping only `clip`.
    fn load_text(&self, path: &Path, text: &str, clip: Option<&str>) -> Result<rig::Rig> {
        let rig = match clip {
            None => rig::load(text),
            Some(clip) => rig::load_clip(text, clip),
        }
        .with_context(|| input::shown_path(path))?;
        // the work each route's bake asks, at this call's keying: the
        // flags', else the rig's own (its `keys` unless it asks a
        // tolerance)
        let (flag, keys) = match (self.keys, self.tolerance) {
            (Some(k), _) => ("--keys", Some(k)),
            (None, Some(_)) => ("--tolerance", None),
            (None, None) => ("keys", rig.keys.filter(|_| rig.tolerance_px.is_none())),
        };
        for route in self.route.routes() {
            rig::check_key_work(
                flag,
                keys,
                &rig,
                Some(route),
                rig::FEWER_KEYS_OR_A_TOLERANCE,
            )
            .with_context(|| input::shown_path(path))?;
        }
        let mut rig = rig;
        if let Some(p) = &self.prefix {
            rigbake::emit::scope::check_prefix(p)
                .map_err(|why| anyhow::anyhow!("--prefix: {why}"))?;
            rig.prefix = Some(p.clone());
        }
        Ok(rig)
    }
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq)]
enum RouteArg {
    Css,
    Smil,
    Both,
}

impl RouteArg {
    fn routes(self) -> Vec<Route> {
        match self {
            RouteArg::Css => vec![Route::Css],
            RouteArg::Smil => vec![Route::Smil],
            RouteArg::Both => vec![Route::Css, Route::Smil],
        }
    }
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq)]
enum SweepRoute {
    Css,
    Smil,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq)]
enum Format {
    Text,
    Json,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq)]
enum CheckFormat {
    Text,
    Json,
    Junit,
}

/// Process exit codes.
#[repr(u8)]
enum Exit {
    Ok = 0,
    /// `check` found a leg over the threshold.
    CheckFailed = 1,
    /// Bad input or usage.
    BadInput = 2,
}

fn main() -> ExitCode {
    // the format's schema and the thread pool, started while the command
    // line and the files are read
    rig::prepare();
    let done = usage::parse::<Cli>().and_then(|cli| cli.map_or(Ok(Exit::Ok), run));
    // (a signal being handled ends the process by that signal instead)
    rigbake::interrupt::yield_to_signal();
    let code = match done {
        Ok(code) => code,
        Err(e) => {
            eprintln!("rigbake: error: {}", input::error_line(&*e));
            Exit::BadInput
        }
    };
    ExitCode::from(code as u8)
}

fn run(cli: Cli) -> Result<Exit> {
    rigbake::interrupt::install().context("cannot install the signal handler")?;
    batch::keep_freed_memory();
    match cli.command {
        Command::Bake {
            rigs,
            output,
            bake,
            report,
            quiet,
            art,
            watch,
        } => {
            let run = workflow::BakeRun {
                rigs: &rigs,
                output: &output,
                bake: &bake,
                report: report.as_deref(),
                quiet,
                art: art.as_deref(),
            };
            if watch {
                workflow::cmd_watch(&run)
            } else {
                workflow::bake_once(&run)
            }
        }
        Command::Sweep {
            rig,
            keys,
            fit,
            route,
            plot,
            format,
        } => cmd_sweep(&rig, keys, fit, route, plot.as_deref(), format),
        Command::Check {
            rigs,
            max_error,
            max_slip,
            max_reach,
            bake,
            format,
            quiet,
        } => {
            let thresholds = Thresholds {
                max_error_px: max_error,
                max_slip_px: max_slip,
                max_reach_px: max_reach.unwrap_or(max_error),
            };
            cmd_check(&rigs, thresholds, &bake, format, quiet)
        }
        Command::Schema => {
            output::stdout(&rigbake::schema::rig_schema_text())?;
            Ok(Exit::Ok)
        }
        Command::Preview {
            rig,
            output,
            frames,
            route,
            art,
            clip,
        } => workflow::cmd_preview(&rig, &output, frames, route, art.as_deref(), clip),
        Command::Gallery { rigs, output } => workflow::cmd_gallery(&rigs, &output),
        Command::Template { rig, output, clip } => {
            workflow::cmd_template(&rig, &output, clip.as_deref())
        }
        Command::Lower { rig, output } => workflow::cmd_lower(&rig, &output),
        Command::Completions { shell } => {
            let shell = match shell {
                ShellArg::Bash => clap_complete::Shell::Bash,
                ShellArg::Zsh => clap_complete::Shell::Zsh,
                ShellArg::Fish => clap_complete::Shell::Fish,
            };
            let mut buf = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "rigbake", &mut buf);
            output::stdout(&String::from_utf8_lossy(&buf))?;
            Ok(Exit::Ok)
        }
    }
}

/// Whether `--report` names standard output (`-`). Refused with `-o -`:
/// the SVG and the JSON would mix on one stream.
fn report_to_stdout(output: &Path, report: Option<&Path>) -> Result<bool> {
    let to_stdout = report == Some(Path::new("-"));
    if to_stdout && output == Path::new("-") {
        bail!(
            "--report -: standard output already carries the SVG (-o -); name a file for the report"
        );
    }
    Ok(to_stdout)
}

fn read_rig(path: &Path) -> Result<String> {
    Ok(input::read_text(path, input::Input::Rig)?)
}

fn load_rig(path: &Path) -> Result<rig::Rig> {
    rig::load(&read_rig(path)?).with_context(|| input::shown_path(path))
}

fn cmd_sweep(
    path: &Path,
    (a, b): (usize, usize),
    fit: FitChoice,
    route: SweepRoute,
    plot: Option<&Path>,
    format: Format,
) -> Result<Exit> {
    if let Some(p) = plot {
        output::refuse_stdout(
            "--plot",
            p,
            "sweep prints its table on standard output; name a file",
        )?;
    }
    let rig = load_rig(path)?;
    let route = match route {
        SweepRoute::Css => Route::Css,
        SweepRoute::Smil => Route::Smil,
    };
    let fits = match fit {
        FitChoice::Linear => vec![Fit::Linear],
        FitChoice::Cubic => vec![Fit::Cubic],
        FitChoice::Both => vec![Fit::Linear, Fit::Cubic],
    };
    rigbake::sweep::check_work(&rig, route, (a, b), &fits)
        .with_context(|| input::shown_path(path))?;
    let keys: Vec<usize> = (a..=b).collect();
    let table = rigbake::sweep::sweep(&rig, route, &keys, &fits);
    let print = || match format {
        Format::Text => output::stdout(&table.to_text()),
        Format::Json => output::stdout(&format!(
            "{}\n",
            serde_json::to_string_pretty(&table).expect("sweep serialises")
        )),
    };
    match plot {
        Some(p) => {
            let svg = table.to_svg();
            output::write_all_then(
                &[Output::new("--plot", p, svg.as_bytes())],
                &[Input::rig(path)],
                print,
            )?;
        }
        None => print()?,
    }
    Ok(Exit::Ok)
}

/// `check`: bake every rig and route in memory, compare every probe with
/// the threshold ([`report::check::Check`]), print the result in `format`
/// (nothing when `quiet`), list exceeded thresholds on stderr (not when
/// `quiet`); exit 1 when any threshold is exceeded.
fn cmd_check(
    rigs: &[PathBuf],
    thresholds: Thresholds,
    args: &BakeArgs,
    format: CheckFormat,
    quiet: bool,
) -> Result<Exit> {
    for (flag, v) in [
        ("--max-error", thresholds.max_error_px),
        ("--max-slip", thresholds.max_slip_px),
        ("--max-reach", thresholds.max_reach_px),
    ] {
        if !v.is_finite() || v < 0.0 {
            bail!(
                "{flag}: must be a finite number >= 0, got {}",
                rig::shown(v)
            );
        }
    }
    // (−0 is 0, as every output shows it)
    let thresholds = Thresholds {
        max_error_px: thresholds.max_error_px + 0.0,
        max_slip_px: thresholds.max_slip_px + 0.0,
        max_reach_px: thresholds.max_reach_px + 0.0,
    };
    let bar = std::sync::Mutex::new(batch::Progress::new(rigs, !quiet));
    let loaded = batch::load_all(rigs, args)?;
    // bake_each yields every route of one rig before the next rig
    let routes = args.route.routes().len();
    // (each bake is compared as it is made, and only what is printed is
    // kept of it: every probe for JSON and JUnit, the summary for text)
    let probes = !quiet && format != CheckFormat::Text;
    let done = batch::bake_each(rigs, &loaded, args, &bar, |k, b| {
        let file = rigs[k / routes].display().to_string();
        let mut case = Case::of(&thresholds, file, &b.report);
        if !probes {
            case.probes = Vec::new();
            case.notes = Vec::new();
        }
        let text = (!quiet && format == CheckFormat::Text).then(|| b.report.to_text());
        Ok((case, text))
    })?;
    drop(bar);
    debug_assert_eq!(done.len(), rigs.len() * routes);
    let (cases, texts): (Vec<_>, Vec<_>) = done.into_iter().unzip();
    let check = Check::of_cases(thresholds, cases);
    if !quiet {
        let text = match format {
            CheckFormat::Json => check.to_json(),
            CheckFormat::Junit => check.to_junit(),
            CheckFormat::Text => {
                let mut t: String = texts.into_iter().flatten().collect();
                t.push_str(&check.verdict(args.tolerance.is_some(), args.keys.is_some()));
                t
            }
        };
        output::stdout(&text)?;
        for (case, f) in check.failures() {
            eprintln!(
                "rigbake: check failed: {} ({}) {}",
                case.rig,
                case.route.as_str(),
                f.message
            );
        }
    }
    Ok(if check.ok {
        Exit::Ok
    } else {
        Exit::CheckFailed
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cli_definition_is_valid() {
        Cli::command().debug_assert();
    }
}
