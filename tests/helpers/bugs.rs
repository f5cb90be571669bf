// bugs.rs: a panic that aborts (panic=abort, as services build), for t-signature.
#[inline(never)]
fn parse(s: &str) -> u32 {
    s.parse::<u32>().ok().expect("not a number")
}

fn main() {
    let arg = std::env::args().nth(1).unwrap_or_else(|| "x".to_string());
    println!("{}", parse(&arg));
}
