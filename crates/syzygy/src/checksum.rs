//! The checksum the Syzygy generator writes in a file's last 16 bytes (its size is then 16 more
//! than a multiple of 64) and its `tbcheck` tests: CityHash v1.1's 256-bit CRC hash of each
//! 16-MiB chunk of the rest, and the 128-bit CityHash of those hashes laid end to end (its CRC
//! form past 900 bytes, a file of over 448 MiB), each 64-bit word little-endian.
//!
//! No crate on stable Rust gives CityHash's CRC forms, so they are written here from the
//! algorithm's definition; the tests hold them to the checksums of the generator's own files.
//!
//! Owns: [`checksum`], [`stored_checksum`].
//! Must never: say anything of a file's values (a file whose checksum is right may still hold
//! a wrong value: the check against the proved tables says that).

/// Bytes a chunk hashed on its own.
const CHUNK: usize = 1 << 24;

const K0: u64 = 0xc3a5_c85c_97cb_3127;
const K1: u64 = 0xb492_b66f_be98_f273;
const K2: u64 = 0x9ae1_6a3b_2f90_404f;
const K3: u64 = 0xc949_d7c7_509e_6557;

/// The checksum of a file's bytes before its last 16, as the generator stores it.
pub fn checksum(body: &[u8]) -> [u8; 16] {
    let mut hashes = Vec::with_capacity(32 * body.len().div_ceil(CHUNK).max(1));
    for chunk in body.chunks(CHUNK) {
        for word in crc256(chunk) {
            hashes.extend_from_slice(&word.to_le_bytes());
        }
    }
    let (first, second) = if hashes.len() <= 900 {
        hash128(&hashes)
    } else {
        let words = crc256(&hashes);
        (words[2], words[3])
    };
    let mut out = [0u8; 16];
    out[..8].copy_from_slice(&first.to_le_bytes());
    out[8..].copy_from_slice(&second.to_le_bytes());
    out
}

/// The checksum a file carries, where its size says it has one (16 more than a multiple of
/// 64), and the bytes it covers.
pub fn stored_checksum(file: &[u8]) -> Option<(&[u8], [u8; 16])> {
    if file.len() % 64 != 16 {
        return None;
    }
    let (body, sum) = file.split_at(file.len() - 16);
    Some((body, sum.try_into().ok()?))
}

fn fetch64(s: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(s[at..at + 8].try_into().expect("eight bytes"))
}

fn fetch32(s: &[u8], at: usize) -> u64 {
    u64::from(u32::from_le_bytes(
        s[at..at + 4].try_into().expect("four bytes"),
    ))
}

fn shift_mix(v: u64) -> u64 {
    v ^ (v >> 47)
}

/// Two words hashed into one (Murmur-like).
fn hash16(u: u64, v: u64) -> u64 {
    const MUL: u64 = 0x9ddf_ea08_eb38_2d69;
    let mut a = (u ^ v).wrapping_mul(MUL);
    a ^= a >> 47;
    let mut b = (v ^ a).wrapping_mul(MUL);
    b ^= b >> 47;
    b.wrapping_mul(MUL)
}

fn hash_up_to_16(s: &[u8]) -> u64 {
    let len = s.len();
    if len > 8 {
        let a = fetch64(s, 0);
        let b = fetch64(s, len - 8);
        return hash16(a, b.wrapping_add(len as u64).rotate_right(len as u32)) ^ b;
    }
    if len >= 4 {
        let a = fetch32(s, 0);
        return hash16((len as u64).wrapping_add(a << 3), fetch32(s, len - 4));
    }
    if len > 0 {
        let (a, b, c) = (s[0], s[len >> 1], s[len - 1]);
        let y = u32::from(a).wrapping_add(u32::from(b) << 8);
        let z = (len as u32).wrapping_add(u32::from(c) << 2);
        return shift_mix(u64::from(y).wrapping_mul(K2) ^ u64::from(z).wrapping_mul(K3))
            .wrapping_mul(K2);
    }
    K2
}

/// The pair of words 32 bytes and two seeds mix into.
fn weak_hash32(s: &[u8], at: usize, a: u64, b: u64) -> (u64, u64) {
    let (w, x, y, z) = (
        fetch64(s, at),
        fetch64(s, at + 8),
        fetch64(s, at + 16),
        fetch64(s, at + 24),
    );
    let mut a = a.wrapping_add(w);
    let mut b = b.wrapping_add(a).wrapping_add(z).rotate_right(21);
    let c = a;
    a = a.wrapping_add(x).wrapping_add(y);
    b = b.wrapping_add(a.rotate_right(44));
    (a.wrapping_add(z), b.wrapping_add(c))
}

/// CityHash128 of `s` (v1.1).
fn hash128(s: &[u8]) -> (u64, u64) {
    let len = s.len();
    if len >= 16 {
        hash128_seeded(&s[16..], (fetch64(s, 0) ^ K3, fetch64(s, 8)))
    } else if len >= 8 {
        hash128_seeded(
            &[],
            (
                fetch64(s, 0) ^ (len as u64).wrapping_mul(K0),
                fetch64(s, len - 8) ^ K1,
            ),
        )
    } else {
        hash128_seeded(s, (K0, K1))
    }
}

/// The 128-bit hash of a string under 128 bytes.
fn murmur(s: &[u8], seed: (u64, u64)) -> (u64, u64) {
    let len = s.len();
    let (mut a, mut b) = seed;
    let (mut c, mut d);
    if len <= 16 {
        a = shift_mix(a.wrapping_mul(K1)).wrapping_mul(K1);
        c = b.wrapping_mul(K1).wrapping_add(hash_up_to_16(s));
        d = shift_mix(a.wrapping_add(if len >= 8 { fetch64(s, 0) } else { c }));
    } else {
        c = hash16(fetch64(s, len - 8).wrapping_add(K1), a);
        d = hash16(
            b.wrapping_add(len as u64),
            c.wrapping_add(fetch64(s, len - 16)),
        );
        a = a.wrapping_add(d);
        let mut at = 0;
        let mut left = len as i64 - 16;
        while left > 0 {
            a ^= shift_mix(fetch64(s, at).wrapping_mul(K1)).wrapping_mul(K1);
            a = a.wrapping_mul(K1);
            b ^= a;
            c ^= shift_mix(fetch64(s, at + 8).wrapping_mul(K1)).wrapping_mul(K1);
            c = c.wrapping_mul(K1);
            d ^= c;
            at += 16;
            left -= 16;
        }
    }
    let a2 = hash16(a, c);
    let b2 = hash16(d, b);
    (a2 ^ b2, hash16(b2, a2))
}

/// CityHash128WithSeed of `s` (v1.1).
fn hash128_seeded(s: &[u8], seed: (u64, u64)) -> (u64, u64) {
    let mut len = s.len();
    if len < 128 {
        return murmur(s, seed);
    }
    let (mut x, mut y) = seed;
    let mut z = (len as u64).wrapping_mul(K1);
    let v0 = (y ^ K1)
        .rotate_right(49)
        .wrapping_mul(K1)
        .wrapping_add(fetch64(s, 0));
    let mut v = (
        v0,
        v0.rotate_right(42)
            .wrapping_mul(K1)
            .wrapping_add(fetch64(s, 8)),
    );
    let mut w = (
        y.wrapping_add(z)
            .rotate_right(35)
            .wrapping_mul(K1)
            .wrapping_add(x),
        x.wrapping_add(fetch64(s, 88))
            .rotate_right(53)
            .wrapping_mul(K1),
    );
    let mut at = 0;
    // One 64-byte round of the long loop.
    let round = |at: usize,
                 x: &mut u64,
                 y: &mut u64,
                 z: &mut u64,
                 v: &mut (u64, u64),
                 w: &mut (u64, u64)| {
        *x = x
            .wrapping_add(*y)
            .wrapping_add(v.0)
            .wrapping_add(fetch64(s, at + 8))
            .rotate_right(37)
            .wrapping_mul(K1);
        *y = y
            .wrapping_add(v.1)
            .wrapping_add(fetch64(s, at + 48))
            .rotate_right(42)
            .wrapping_mul(K1);
        *x ^= w.1;
        *y = y.wrapping_add(v.0).wrapping_add(fetch64(s, at + 40));
        *z = z.wrapping_add(w.0).rotate_right(33).wrapping_mul(K1);
        *v = weak_hash32(s, at, v.1.wrapping_mul(K1), x.wrapping_add(w.0));
        *w = weak_hash32(
            s,
            at + 32,
            z.wrapping_add(w.1),
            y.wrapping_add(fetch64(s, at + 16)),
        );
        std::mem::swap(z, x);
    };
    loop {
        round(at, &mut x, &mut y, &mut z, &mut v, &mut w);
        round(at + 64, &mut x, &mut y, &mut z, &mut v, &mut w);
        at += 128;
        len -= 128;
        if len < 128 {
            break;
        }
    }
    x = x.wrapping_add(v.0.wrapping_add(z).rotate_right(49).wrapping_mul(K0));
    z = z.wrapping_add(w.0.rotate_right(37).wrapping_mul(K0));
    let mut done = 0;
    while done < len {
        done += 32;
        y = x
            .wrapping_add(y)
            .rotate_right(42)
            .wrapping_mul(K0)
            .wrapping_add(v.1);
        w.0 = w.0.wrapping_add(fetch64(s, at + len - done + 16));
        x = x.wrapping_mul(K0).wrapping_add(w.0);
        z = z
            .wrapping_add(w.1)
            .wrapping_add(fetch64(s, at + len - done));
        w.1 = w.1.wrapping_add(v.0);
        v = weak_hash32(s, at + len - done, v.0.wrapping_add(z), v.1);
    }
    x = hash16(x, v.0);
    y = hash16(y.wrapping_add(z), w.0);
    (
        hash16(x.wrapping_add(v.1), w.1).wrapping_add(y),
        hash16(x.wrapping_add(w.1), y.wrapping_add(v.1)),
    )
}

/// CRC-32C (Castagnoli, reflected) of one little-endian word appended to `crc`, without the
/// customary inversions: the x86 `crc32` instruction on 64 bits.
fn crc32c_word(crc: u64, word: u64) -> u64 {
    const TABLE: [u32; 256] = {
        let mut table = [0u32; 256];
        let mut n = 0;
        while n < 256 {
            let mut c = n as u32;
            let mut k = 0;
            while k < 8 {
                c = if c & 1 == 1 {
                    (c >> 1) ^ 0x82f6_3b78
                } else {
                    c >> 1
                };
                k += 1;
            }
            table[n] = c;
            n += 1;
        }
        table
    };
    let mut c = crc as u32;
    for byte in word.to_le_bytes() {
        c = (c >> 8) ^ TABLE[((c ^ u32::from(byte)) & 0xff) as usize];
    }
    u64::from(c)
}

/// CityHashCrc256 of `s` (v1.1): four words.
fn crc256(s: &[u8]) -> [u64; 4] {
    if s.len() >= 240 {
        crc256_long(s, 0)
    } else {
        let mut padded = [0u8; 240];
        padded[..s.len()].copy_from_slice(s);
        crc256_long(&padded, !(s.len() as u32))
    }
}

fn crc256_long(s: &[u8], seed: u32) -> [u64; 4] {
    let len = s.len();
    let mut result = [0u64; 4];
    let mut a = fetch64(s, 56).wrapping_add(K0);
    let mut b = fetch64(s, 96).wrapping_add(K0);
    let mut c = hash16(b, len as u64);
    result[0] = c;
    let mut d = fetch64(s, 120).wrapping_mul(K0).wrapping_add(len as u64);
    result[1] = d;
    let mut e = fetch64(s, 184).wrapping_add(u64::from(seed));
    let mut f = u64::from(seed);
    let (mut g, mut h, mut i, mut j) = (0u64, 0u64, 0u64, 0u64);
    let mut t = c.wrapping_add(d);
    // Mixes the 40 bytes at `at` into the state.
    let mut chunk = |at: usize, multiplier: u64, z: u32| {
        let old_a = a;
        a = b
            .rotate_right(41 ^ z)
            .wrapping_mul(multiplier)
            .wrapping_add(fetch64(s, at));
        b = c
            .rotate_right(27 ^ z)
            .wrapping_mul(multiplier)
            .wrapping_add(fetch64(s, at + 8));
        c = d
            .rotate_right(41 ^ z)
            .wrapping_mul(multiplier)
            .wrapping_add(fetch64(s, at + 16));
        d = e
            .rotate_right(33 ^ z)
            .wrapping_mul(multiplier)
            .wrapping_add(fetch64(s, at + 24));
        e = t
            .rotate_right(25 ^ z)
            .wrapping_mul(multiplier)
            .wrapping_add(fetch64(s, at + 32));
        t = old_a;
        f = crc32c_word(f, a);
        g = crc32c_word(g, b);
        h = crc32c_word(h, c);
        i = crc32c_word(i, d);
        j = crc32c_word(j, e);
    };
    let iters = len / 240;
    let mut left = len - iters * 240;
    let mut at = 0;
    for _ in 0..iters {
        for _ in 0..3 {
            chunk(at, 1, 1);
            chunk(at + 40, K0, 0);
            at += 80;
        }
    }
    while left >= 40 {
        chunk(at, K0, 0);
        at += 40;
        left -= 40;
    }
    if left > 0 {
        chunk(at + left - 40, K0, 0);
    }
    j = j.wrapping_add(i << 32);
    a = hash16(a, j);
    h = h.wrapping_add(g << 32);
    b = b.wrapping_add(h);
    c = hash16(c, f).wrapping_add(i);
    d = hash16(d, e.wrapping_add(result[0]));
    j = j.wrapping_add(e);
    i = i.wrapping_add(hash16(h, t));
    e = hash16(a, d).wrapping_add(j);
    f = hash16(b, c).wrapping_add(a);
    g = hash16(j, i).wrapping_add(c);
    result[0] = e.wrapping_add(f).wrapping_add(g).wrapping_add(h);
    a = shift_mix(a.wrapping_add(g).wrapping_mul(K0))
        .wrapping_mul(K0)
        .wrapping_add(b);
    result[1] = result[1].wrapping_add(a).wrapping_add(result[0]);
    a = shift_mix(a.wrapping_mul(K0))
        .wrapping_mul(K0)
        .wrapping_add(c);
    result[2] = a.wrapping_add(result[1]);
    a = shift_mix(a.wrapping_add(e).wrapping_mul(K0)).wrapping_mul(K0);
    result[3] = a.wrapping_add(result[2]);
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_crc_is_castagnolis() {
        // CRC-32C of "12345678", inverted before and after as the standard has it.
        let crc = !crc32c_word(0xffff_ffff, u64::from_le_bytes(*b"12345678")) as u32;
        assert_eq!(crc, 0x6087_809a);
    }

    #[test]
    fn the_generators_files_carry_their_checksums() {
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../cli/tests/syzygy/files");
        let mut checked = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let file = std::fs::read(entry.unwrap().path()).unwrap();
            let Some((body, sum)) = stored_checksum(&file) else {
                continue;
            };
            assert_eq!(checksum(body), sum);
            checked += 1;
        }
        assert!(checked >= 2);
    }

    #[test]
    fn a_file_without_room_for_a_checksum_has_none() {
        assert!(stored_checksum(&[0u8; 64]).is_none());
        assert_eq!(
            stored_checksum(&[7u8; 80]).map(|(b, s)| (b.len(), s)),
            Some((64, [7; 16]))
        );
    }
}
