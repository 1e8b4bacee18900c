fn main() {
    println!("cf-runner");
}
