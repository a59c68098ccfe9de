fn main() -> std::process::ExitCode {
    fanhub::cli::main()
}
