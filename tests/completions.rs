//! `rigbake completions <shell>`: a script for each supported shell that
//! names the subcommands; an unknown shell is a usage error (exit 2).

use assert_cmd::Command;

fn run(args: &[&str]) -> std::process::Output {
    Command::cargo_bin("rigbake")
        .unwrap()
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn each_shell_gets_a_script_naming_the_subcommands() {
    for (shell, marker) in [
        ("bash", "complete -F _rigbake"),
        ("zsh", "#compdef rigbake"),
        ("fish", "complete -c rigbake"),
    ] {
        let out = run(&["completions", shell]);
        assert!(out.status.success(), "{shell}");
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.contains(marker), "{shell}: no {marker:?}");
        for sub in ["bake", "check", "sweep", "schema", "completions"] {
            assert!(text.contains(sub), "{shell}: no {sub}");
        }
        assert!(text.contains("route"), "{shell}: no --route option");
    }
}

#[test]
fn unknown_shell_is_a_usage_error() {
    let out = run(&["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("tcsh"));
}
