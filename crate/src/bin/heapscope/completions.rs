//! `heapscope completions`: a shell's completion script, generated from the parser.

use clap::CommandFactory;
use clap_complete::Shell;

use crate::common::{self, Global, Outcome};

#[derive(clap::Args, Debug)]
#[command(
    after_help = "Install, e.g.: heapscope completions bash > ~/.local/share/bash-completion/completions/heapscope\n\
    (zsh: a file _heapscope in a folder of $fpath; fish: ~/.config/fish/completions/heapscope.fish)"
)]
pub struct Args {
    /// The shell to complete in
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: Shell,
}

pub fn run(args: &Args, _global: &Global) -> Outcome {
    let mut command = crate::Cli::command();
    // Into memory first: written straight to a closed pipe, generate would panic.
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "heapscope", &mut script);
    common::write_stdout(&script);
    Ok(())
}
