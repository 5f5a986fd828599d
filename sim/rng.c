/* sim/rng.c: PCG32 seeding, stream derivation and the deterministic log.
 *
 * Why a hand-written log: libm's log() may differ between C libraries and
 * versions, and a compiler may evaluate it differently at different -O levels
 * (constant folding with MPFR, vectorised variants). The run's event order
 * depends on every delay, so one differing bit would fork the trace. The
 * table-and-series method below uses only operations IEEE 754 defines
 * exactly (each rounded once), which x86-64 SSE2, AArch64 and every other target absim cares about
 * implement identically, given -ffp-contract=off (no fused multiply-add). */
#include "rng.h"

#include <string.h>

void rng_seed(rng *r, uint64_t initstate, uint64_t initseq) {
    r->state = 0u;
    r->inc = (initseq << 1u) | 1u;
    (void)rng_u32(r);
    r->state += initstate;
    (void)rng_u32(r);
}

/* The stream id picks the LCG increment (63 bits of it), which makes streams
 * distinct sequences; the start state is scrambled from both seed and id so
 * streams of one seed do not start at related points of their cycles. */
rng rng_stream(uint64_t run_seed, uint64_t stream_id) {
    rng r;
    rng_seed(&r, rng_splitmix64(run_seed ^ rng_splitmix64(stream_id)), stream_id);
    return r;
}

/* ln_cells[i] = { 1/c, ln(c) } for c = 1 + (2i + 1) / 512, the centre of the
 * i-th of 256 equal cells of [1, 2). Constants, written as exact hex
 * floats: how they were computed does not matter, only that every build
 * reads the same bits. */
static const double ln_cells[256][2] = {
    { 0x1.ff007fc01ff00p-1, 0x1.ff802a9ab10e6p-10 },  /*   0 */
    { 0x1.fd04794a10e6ap-1, 0x1.7ee11ebd82e94p-8 },  /*   1 */
    { 0x1.fb0c610d5e939p-1, 0x1.3e7295d25a7d9p-7 },  /*   2 */
    { 0x1.f9182b6813bafp-1, 0x1.bcf712c74384cp-7 },  /*   3 */
    { 0x1.f727cce5f530ap-1, 0x1.1d7f7eb9eebe7p-6 },  /*   4 */
    { 0x1.f53b3a3fa204ep-1, 0x1.5c45a51b8d389p-6 },  /*   5 */
    { 0x1.f3526859b8cecp-1, 0x1.9ace7551cc514p-6 },  /*   6 */
    { 0x1.f16d4c4401f17p-1, 0x1.d91a66c543cc4p-6 },  /*   7 */
    { 0x1.ef8bdb389ebadp-1, 0x1.0b94f7c196176p-5 },  /*   8 */
    { 0x1.edae0a9b3d3a5p-1, 0x1.2a7ec2214e873p-5 },  /*   9 */
    { 0x1.ebd3cff850b0cp-1, 0x1.494acc34d911cp-5 },  /*  10 */
    { 0x1.e9fd21044e799p-1, 0x1.67f94f094bd98p-5 },  /*  11 */
    { 0x1.e829f39aef509p-1, 0x1.868a83083f6cfp-5 },  /*  12 */
    { 0x1.e65a3dbe74d6bp-1, 0x1.a4fe9ffa3d235p-5 },  /*  13 */
    { 0x1.e48df596f3394p-1, 0x1.c355dd0921f2dp-5 },  /*  14 */
    { 0x1.e2c511719ee16p-1, 0x1.e19070c276016p-5 },  /*  15 */
    { 0x1.e0ff87c01e100p-1, 0x1.ffae9119b9303p-5 },  /*  16 */
    { 0x1.df3d4f17de4dbp-1, 0x1.0ed839b5526fep-4 },  /*  17 */
    { 0x1.dd7e5e316d94cp-1, 0x1.1dcb263db1944p-4 },  /*  18 */
    { 0x1.dbc2abe7d71d4p-1, 0x1.2cb0283f5de1fp-4 },  /*  19 */
    { 0x1.da0a2f3803b41p-1, 0x1.3b87598b1b6eep-4 },  /*  20 */
    { 0x1.d854df401d855p-1, 0x1.4a50d3aa1b040p-4 },  /*  21 */
    { 0x1.d6a2b33ef7448p-1, 0x1.590cafdf01c28p-4 },  /*  22 */
    { 0x1.d4f3a293769cap-1, 0x1.67bb0726ec0fcp-4 },  /*  23 */
    { 0x1.d347a4bc01d34p-1, 0x1.765bf23a6be13p-4 },  /*  24 */
    { 0x1.d19eb155f08a4p-1, 0x1.84ef898e8282ap-4 },  /*  25 */
    { 0x1.cff8c01cff8c0p-1, 0x1.9375e55595edep-4 },  /*  26 */
    { 0x1.ce55c8eac7900p-1, 0x1.a1ef1d8061cd4p-4 },  /*  27 */
    { 0x1.ccb5c3b636e3ap-1, 0x1.b05b49bee43fep-4 },  /*  28 */
    { 0x1.cb18a8930de60p-1, 0x1.beba818146765p-4 },  /*  29 */
    { 0x1.c97e6fb15e44dp-1, 0x1.cd0cdbf8c13e1p-4 },  /*  30 */
    { 0x1.c7e7115d0ce95p-1, 0x1.db5270187d927p-4 },  /*  31 */
    { 0x1.c65285fd56843p-1, 0x1.e98b549671467p-4 },  /*  32 */
    { 0x1.c4c0c61456a8ep-1, 0x1.f7b79fec37ddfp-4 },  /*  33 */
    { 0x1.c331ca3e91679p-1, 0x1.02ebb42bf3d4bp-3 },  /*  34 */
    { 0x1.c1a58b327f576p-1, 0x1.09f561ee719c3p-3 },  /*  35 */
    { 0x1.c01c01c01c01cp-1, 0x1.10f8e422539b1p-3 },  /*  36 */
    { 0x1.be9526d0769fap-1, 0x1.17f6458fca611p-3 },  /*  37 */
    { 0x1.bd10f365451b6p-1, 0x1.1eed90e2dc2c3p-3 },  /*  38 */
    { 0x1.bb8f609879493p-1, 0x1.25ded0abc6ad2p-3 },  /*  39 */
    { 0x1.ba10679bd8488p-1, 0x1.2cca0f5f5f251p-3 },  /*  40 */
    { 0x1.b89401b89401cp-1, 0x1.33af575770e4fp-3 },  /*  41 */
    { 0x1.b71a284ee6b34p-1, 0x1.3a8eb2d31a376p-3 },  /*  42 */
    { 0x1.b5a2d4d5b081fp-1, 0x1.41682bf727bc0p-3 },  /*  43 */
    { 0x1.b42e00da17007p-1, 0x1.483bccce6e3ddp-3 },  /*  44 */
    { 0x1.b2bba5ff26a23p-1, 0x1.4f099f4a230b2p-3 },  /*  45 */
    { 0x1.b14bbdfd760e6p-1, 0x1.55d1ad4232d6fp-3 },  /*  46 */
    { 0x1.afde42a2cb482p-1, 0x1.5c940075972b9p-3 },  /*  47 */
    { 0x1.ae732dd1c2a09p-1, 0x1.6350a28aaa758p-3 },  /*  48 */
    { 0x1.ad0a798177693p-1, 0x1.6a079d0f7aad2p-3 },  /*  49 */
    { 0x1.aba41fbd2e5b1p-1, 0x1.70b8f97a1aa75p-3 },  /*  50 */
    { 0x1.aa401aa401aa4p-1, 0x1.7764c128f2127p-3 },  /*  51 */
    { 0x1.a8de64688ebabp-1, 0x1.7e0afd630c274p-3 },  /*  52 */
    { 0x1.a77ef750a56dap-1, 0x1.84abb75865139p-3 },  /*  53 */
    { 0x1.a621cdb4f8fdfp-1, 0x1.8b46f8223625bp-3 },  /*  54 */
    { 0x1.a4c6e200d2637p-1, 0x1.91dcc8c340bdep-3 },  /*  55 */
    { 0x1.a36e2eb1c432dp-1, 0x1.986d3228180cap-3 },  /*  56 */
    { 0x1.a217ae575ff2fp-1, 0x1.9ef83d2769a34p-3 },  /*  57 */
    { 0x1.a0c35b92ecdf1p-1, 0x1.a57df28244dcdp-3 },  /*  58 */
    { 0x1.9f713117200d0p-1, 0x1.abfe5ae46124cp-3 },  /*  59 */
    { 0x1.9e2129a7d5f0ap-1, 0x1.b2797ee46320cp-3 },  /*  60 */
    { 0x1.9cd34019cd340p-1, 0x1.b8ef670420c3bp-3 },  /*  61 */
    { 0x1.9b876f5262dd1p-1, 0x1.bf601bb0e44e2p-3 },  /*  62 */
    { 0x1.9a3db2474fb98p-1, 0x1.c5cba543ae425p-3 },  /*  63 */
    { 0x1.98f603fe670a0p-1, 0x1.cc320c0176502p-3 },  /*  64 */
    { 0x1.97b05f8d56652p-1, 0x1.d293581b6b3e7p-3 },  /*  65 */
    { 0x1.966cc01966cc0p-1, 0x1.d8ef91af31d5ep-3 },  /*  66 */
    { 0x1.952b20d73ee97p-1, 0x1.df46c0c722d2fp-3 },  /*  67 */
    { 0x1.93eb7d0aa6759p-1, 0x1.e598ed5a87e2fp-3 },  /*  68 */
    { 0x1.92add0064ab74p-1, 0x1.ebe61f4dd7b0bp-3 },  /*  69 */
    { 0x1.9172152b841ddp-1, 0x1.f22e5e72f105dp-3 },  /*  70 */
    { 0x1.903847ea1cec1p-1, 0x1.f871b28955045p-3 },  /*  71 */
    { 0x1.8f0063c018f00p-1, 0x1.feb0233e607ccp-3 },  /*  72 */
    { 0x1.8dca64397e408p-1, 0x1.0274dc16c232fp-2 },  /*  73 */
    { 0x1.8c9644f01efbcp-1, 0x1.058f3c703ebc6p-2 },  /*  74 */
    { 0x1.8b64018b64019p-1, 0x1.08a73667c57afp-2 },  /*  75 */
    { 0x1.8a3395c018a34p-1, 0x1.0bbccdb0d24bdp-2 },  /*  76 */
    { 0x1.8904fd503744bp-1, 0x1.0ed005f657da4p-2 },  /*  77 */
    { 0x1.87d8340ab6e97p-1, 0x1.11e0e2dad9cb7p-2 },  /*  78 */
    { 0x1.86ad35cb59a84p-1, 0x1.14ef67f88685ap-2 },  /*  79 */
    { 0x1.8583fe7a7c018p-1, 0x1.17fb98e15095dp-2 },  /*  80 */
    { 0x1.845c8a0ce5129p-1, 0x1.1b05791f07b49p-2 },  /*  81 */
    { 0x1.8336d48397a24p-1, 0x1.1e0d0c33716bep-2 },  /*  82 */
    { 0x1.8212d9eba4018p-1, 0x1.211255986160cp-2 },  /*  83 */
    { 0x1.80f0965dfabcbp-1, 0x1.241558bfd1404p-2 },  /*  84 */
    { 0x1.7fd005ff40180p-1, 0x1.27161913f853dp-2 },  /*  85 */
    { 0x1.7eb124ffa053bp-1, 0x1.2a1499f762bc9p-2 },  /*  86 */
    { 0x1.7d93ef9aa4b46p-1, 0x1.2d10dec508583p-2 },  /*  87 */
    { 0x1.7c7862170949fp-1, 0x1.300aead06350cp-2 },  /*  88 */
    { 0x1.7b5e78c693733p-1, 0x1.3302c16586588p-2 },  /*  89 */
    { 0x1.7a463005e918cp-1, 0x1.35f865c93293ep-2 },  /*  90 */
    { 0x1.792f843c689c3p-1, 0x1.38ebdb38ed321p-2 },  /*  91 */
    { 0x1.781a71dc01782p-1, 0x1.3bdd24eb14b6ap-2 },  /*  92 */
    { 0x1.7706f5610d8d0p-1, 0x1.3ecc460ef5f50p-2 },  /*  93 */
    { 0x1.75f50b522b17cp-1, 0x1.41b941cce0beep-2 },  /*  94 */
    { 0x1.74e4b040174e5p-1, 0x1.44a41b463c47cp-2 },  /*  95 */
    { 0x1.73d5e0c5899f7p-1, 0x1.478cd5959b3d9p-2 },  /*  96 */
    { 0x1.72c899870f91fp-1, 0x1.4a7373cecf997p-2 },  /*  97 */
    { 0x1.71bcd732e940ap-1, 0x1.4d57f8fefe27fp-2 },  /*  98 */
    { 0x1.70b29680e66fap-1, 0x1.503a682cb1cb3p-2 },  /*  99 */
    { 0x1.6fa9d43244380p-1, 0x1.531ac457ee77ep-2 },  /* 100 */
    { 0x1.6ea28d118b474p-1, 0x1.55f9107a43ee2p-2 },  /* 101 */
    { 0x1.6d9cbdf26eaefp-1, 0x1.58d54f86e02f2p-2 },  /* 102 */
    { 0x1.6c9863b1ab429p-1, 0x1.5baf846aa1b19p-2 },  /* 103 */
    { 0x1.6b957b34e7803p-1, 0x1.5e87b20c2954ap-2 },  /* 104 */
    { 0x1.6a94016a94017p-1, 0x1.615ddb4bec13cp-2 },  /* 105 */
    { 0x1.6993f349cc726p-1, 0x1.64320304447c0p-2 },  /* 106 */
    { 0x1.68954dd2390bap-1, 0x1.67042c0983e31p-2 },  /* 107 */
    { 0x1.67980e0bf08c7p-1, 0x1.69d4592a0362cp-2 },  /* 108 */
    { 0x1.669c31075ab40p-1, 0x1.6ca28d2e34985p-2 },  /* 109 */
    { 0x1.65a1b3dd13357p-1, 0x1.6f6ecad8b2292p-2 },  /* 110 */
    { 0x1.64a893adcd25fp-1, 0x1.723914e6500e1p-2 },  /* 111 */
    { 0x1.63b0cda236e1cp-1, 0x1.75016e0e2ba62p-2 },  /* 112 */
    { 0x1.62ba5eeade65ep-1, 0x1.77c7d901bb914p-2 },  /* 113 */
    { 0x1.61c544c0161c5p-1, 0x1.7a8c586cdf544p-2 },  /* 114 */
    { 0x1.60d17c61da198p-1, 0x1.7d4eeef5eec6ep-2 },  /* 115 */
    { 0x1.5fdf0317b5c6fp-1, 0x1.800f9f3dc94cbp-2 },  /* 116 */
    { 0x1.5eedd630a9fb3p-1, 0x1.82ce6bdfe4d9dp-2 },  /* 117 */
    { 0x1.5dfdf303137b6p-1, 0x1.858b57725cc43p-2 },  /* 118 */
    { 0x1.5d0f56ec91e57p-1, 0x1.8846648600624p-2 },  /* 119 */
    { 0x1.5c21ff51ef005p-1, 0x1.8aff95a661780p-2 },  /* 120 */
    { 0x1.5b35e99f06714p-1, 0x1.8db6ed59e272dp-2 },  /* 121 */
    { 0x1.5a4b1346add2bp-1, 0x1.906c6e21c4754p-2 },  /* 122 */
    { 0x1.596179c29d2cep-1, 0x1.93201a7a35337p-2 },  /* 123 */
    { 0x1.58791a9357ccep-1, 0x1.95d1f4da5ca0ap-2 },  /* 124 */
    { 0x1.5791f34015792p-1, 0x1.9881ffb46a6f0p-2 },  /* 125 */
    { 0x1.56ac0156ac015p-1, 0x1.9b303d75a361fp-2 },  /* 126 */
    { 0x1.55c7426b79286p-1, 0x1.9ddcb0866e742p-2 },  /* 127 */
    { 0x1.54e3b4194ce66p-1, 0x1.a0875b4a61d17p-2 },  /* 128 */
    { 0x1.5401540154015p-1, 0x1.a33040204fa63p-2 },  /* 129 */
    { 0x1.53201fcb02fb1p-1, 0x1.a5d7616252c37p-2 },  /* 130 */
    { 0x1.5240152401524p-1, 0x1.a87cc165db199p-2 },  /* 131 */
    { 0x1.516131c015161p-1, 0x1.ab20627bba0a0p-2 },  /* 132 */
    { 0x1.508373590ec9cp-1, 0x1.adc246f02e8ffp-2 },  /* 133 */
    { 0x1.4fa6d7aeb597cp-1, 0x1.b062710af141bp-2 },  /* 134 */
    { 0x1.4ecb5c86b3d24p-1, 0x1.b300e30f402a3p-2 },  /* 135 */
    { 0x1.4df0ffac83c01p-1, 0x1.b59d9f3bea7c2p-2 },  /* 136 */
    { 0x1.4d17bef15cb4ep-1, 0x1.b838a7cb5c1f0p-2 },  /* 137 */
    { 0x1.4c3f982c20723p-1, 0x1.bad1fef3a9165p-2 },  /* 138 */
    { 0x1.4b68893948d1cp-1, 0x1.bd69a6e698c47p-2 },  /* 139 */
    { 0x1.4a928ffad5b5cp-1, 0x1.bfffa1d1b1084p-2 },  /* 140 */
    { 0x1.49bdaa583b401p-1, 0x1.c293f1de4137cp-2 },  /* 141 */
    { 0x1.48e9d63e504d1p-1, 0x1.c52699316cf6bp-2 },  /* 142 */
    { 0x1.4817119f3d325p-1, 0x1.c7b799ec36eb0p-2 },  /* 143 */
    { 0x1.47455a726abf2p-1, 0x1.ca46f62b8b4e7p-2 },  /* 144 */
    { 0x1.4674aeb4717e9p-1, 0x1.ccd4b0084a5efp-2 },  /* 145 */
    { 0x1.45a50c670938fp-1, 0x1.cf60c99752adap-2 },  /* 146 */
    { 0x1.44d67190f8b43p-1, 0x1.d1eb44e98b4c9p-2 },  /* 147 */
    { 0x1.4408dc3e05b22p-1, 0x1.d474240beddd6p-2 },  /* 148 */
    { 0x1.433c4a7ee52b4p-1, 0x1.d6fb6907907eap-2 },  /* 149 */
    { 0x1.4270ba692bc4dp-1, 0x1.d98115e1af9b6p-2 },  /* 150 */
    { 0x1.41a62a173e821p-1, 0x1.dc052c9bb79acp-2 },  /* 151 */
    { 0x1.40dc97a843ae8p-1, 0x1.de87af334e71bp-2 },  /* 152 */
    { 0x1.4014014014014p-1, 0x1.e1089fa25d168p-2 },  /* 153 */
    { 0x1.3f4c65072bf74p-1, 0x1.e387ffdf18d76p-2 },  /* 154 */
    { 0x1.3e85c12a9d651p-1, 0x1.e605d1dc0c92fp-2 },  /* 155 */
    { 0x1.3dc013dc013dcp-1, 0x1.e882178821d52p-2 },  /* 156 */
    { 0x1.3cfb5b51698ebp-1, 0x1.eafcd2cea9d71p-2 },  /* 157 */
    { 0x1.3c3795c553afbp-1, 0x1.ed7605976663bp-2 },  /* 158 */
    { 0x1.3b74c1769aa5cp-1, 0x1.efedb1c692a08p-2 },  /* 159 */
    { 0x1.3ab2dca869b81p-1, 0x1.f263d93cebbb7p-2 },  /* 160 */
    { 0x1.39f1e5a22f36ep-1, 0x1.f4d87dd7b97e6p-2 },  /* 161 */
    { 0x1.3931daaf8f721p-1, 0x1.f74ba170d6c7dp-2 },  /* 162 */
    { 0x1.3872ba2057e04p-1, 0x1.f9bd45deb9ea4p-2 },  /* 163 */
    { 0x1.37b4824872744p-1, 0x1.fc2d6cf47cf1ap-2 },  /* 164 */
    { 0x1.36f7317fd9212p-1, 0x1.fe9c1881e5cffp-2 },  /* 165 */
    { 0x1.363ac622898b1p-1, 0x1.0084a529b7386p-1 },  /* 166 */
    { 0x1.357f3e9078e5bp-1, 0x1.01ba8219265a4p-1 },  /* 167 */
    { 0x1.34c4992d87fd9p-1, 0x1.02efa3f23d29cp-1 },  /* 168 */
    { 0x1.340ad461776d3p-1, 0x1.04240b965e54cp-1 },  /* 169 */
    { 0x1.3351ee97dbfc6p-1, 0x1.0557b9e55634ep-1 },  /* 170 */
    { 0x1.3299e6401329ap-1, 0x1.068aafbd5e9dap-1 },  /* 171 */
    { 0x1.31e2b9cd37dc2p-1, 0x1.07bcedfb229fdp-1 },  /* 172 */
    { 0x1.312c67b6173eep-1, 0x1.08ee7579c2413p-1 },  /* 173 */
    { 0x1.3076ee7525c2cp-1, 0x1.0a1f4712d6292p-1 },  /* 174 */
    { 0x1.2fc24c8874486p-1, 0x1.0b4f639e73429p-1 },  /* 175 */
    { 0x1.2f0e8071a5703p-1, 0x1.0c7ecbf32e533p-1 },  /* 176 */
    { 0x1.2e5b88b5e3104p-1, 0x1.0dad80e61f87bp-1 },  /* 177 */
    { 0x1.2da963ddd3cfbp-1, 0x1.0edb834ae5f5ep-1 },  /* 178 */
    { 0x1.2cf8107590e67p-1, 0x1.1008d3f3ab146p-1 },  /* 179 */
    { 0x1.2c478d0c9c013p-1, 0x1.113573b126282p-1 },  /* 180 */
    { 0x1.2b97d835d548ep-1, 0x1.126163529fa7ap-1 },  /* 181 */
    { 0x1.2ae8f087718d0p-1, 0x1.138ca3a5f494fp-1 },  /* 182 */
    { 0x1.2a3ad49af0907p-1, 0x1.14b7357799cd1p-1 },  /* 183 */
    { 0x1.298d830d13780p-1, 0x1.15e119929f4e4p-1 },  /* 184 */
    { 0x1.28e0fa7dd35a3p-1, 0x1.170a50c0b374ap-1 },  /* 185 */
    { 0x1.2835399057efdp-1, 0x1.1832dbca262d9p-1 },  /* 186 */
    { 0x1.278a3eeaee650p-1, 0x1.195abb75ec21ap-1 },  /* 187 */
    { 0x1.26e009370049cp-1, 0x1.1a81f089a1d56p-1 },  /* 188 */
    { 0x1.263697210aa18p-1, 0x1.1ba87bc98ec1bp-1 },  /* 189 */
    { 0x1.258de75895121p-1, 0x1.1cce5df8a8622p-1 },  /* 190 */
    { 0x1.24e5f89029305p-1, 0x1.1df397d8953bfp-1 },  /* 191 */
    { 0x1.243ec97d49eaep-1, 0x1.1f182a29afdb0p-1 },  /* 192 */
    { 0x1.239858d86b11fp-1, 0x1.203c15ab09c7ap-1 },  /* 193 */
    { 0x1.22f2a55ce8fc5p-1, 0x1.215f5b1a6e729p-1 },  /* 194 */
    { 0x1.224dadc900489p-1, 0x1.2281fb346619fp-1 },  /* 195 */
    { 0x1.21a970ddc5ba7p-1, 0x1.23a3f6b438a53p-1 },  /* 196 */
    { 0x1.2105ed5f1e336p-1, 0x1.24c54e53f0793p-1 },  /* 197 */
    { 0x1.20632213b6c6dp-1, 0x1.25e602cc5d447p-1 },  /* 198 */
    { 0x1.1fc10dc4fce8bp-1, 0x1.270614d516c38p-1 },  /* 199 */
    { 0x1.1f1faf3f16b64p-1, 0x1.282585247f7d3p-1 },  /* 200 */
    { 0x1.1e7f0550db594p-1, 0x1.2944546fc777ap-1 },  /* 201 */
    { 0x1.1ddf0ecbcb841p-1, 0x1.2a62836aeee59p-1 },  /* 202 */
    { 0x1.1d3fca840a074p-1, 0x1.2b8012c8c8cc1p-1 },  /* 203 */
    { 0x1.1ca13750547fep-1, 0x1.2c9d033afda0fp-1 },  /* 204 */
    { 0x1.1c035409fc1dfp-1, 0x1.2db955720de23p-1 },  /* 205 */
    { 0x1.1b661f8cde833p-1, 0x1.2ed50a1d54a5ap-1 },  /* 206 */
    { 0x1.1ac998b75eb90p-1, 0x1.2ff021eb0a221p-1 },  /* 207 */
    { 0x1.1a2dbe6a5e3e4p-1, 0x1.310a9d8846312p-1 },  /* 208 */
    { 0x1.19928f89362b7p-1, 0x1.32247da102ca6p-1 },  /* 209 */
    { 0x1.18f80af9b06dcp-1, 0x1.333dc2e01e776p-1 },  /* 210 */
    { 0x1.185e2fa401186p-1, 0x1.34566def5ec14p-1 },  /* 211 */
    { 0x1.17c4fc72bfcb9p-1, 0x1.356e7f7772978p-1 },  /* 212 */
    { 0x1.172c7052e1316p-1, 0x1.3685f81ff4b07p-1 },  /* 213 */
    { 0x1.16948a33b08fap-1, 0x1.379cd88f6de2bp-1 },  /* 214 */
    { 0x1.15fd4906c96f1p-1, 0x1.38b3216b5778ep-1 },  /* 215 */
    { 0x1.1566abc011567p-1, 0x1.39c8d3581d7ecp-1 },  /* 216 */
    { 0x1.14d0b155b19aep-1, 0x1.3addeef92107fp-1 },  /* 217 */
    { 0x1.143b58c01143bp-1, 0x1.3bf274f0ba70dp-1 },  /* 218 */
    { 0x1.13a6a0f9cf01ep-1, 0x1.3d0665e03b98fp-1 },  /* 219 */
    { 0x1.131288ffbb3b6p-1, 0x1.3e19c267f2182p-1 },  /* 220 */
    { 0x1.127f0fd0d2295p-1, 0x1.3f2c8b27296cep-1 },  /* 221 */
    { 0x1.11ec346e36092p-1, 0x1.403ec0bc2d256p-1 },  /* 222 */
    { 0x1.1159f5db29606p-1, 0x1.415063c44b02cp-1 },  /* 223 */
    { 0x1.10c8531d0952ep-1, 0x1.426174dbd5167p-1 },  /* 224 */
    { 0x1.10374b3b480aap-1, 0x1.4371f49e23d9dp-1 },  /* 225 */
    { 0x1.0fa6dd3f67322p-1, 0x1.4481e3a59840ep-1 },  /* 226 */
    { 0x1.0f170834f27fap-1, 0x1.4591428b9dc68p-1 },  /* 227 */
    { 0x1.0e87cb297a51ep-1, 0x1.46a011e8ac745p-1 },  /* 228 */
    { 0x1.0df9252c8e5e6p-1, 0x1.47ae52544ae44p-1 },  /* 229 */
    { 0x1.0d6b154fb86f9p-1, 0x1.48bc0465103d8p-1 },  /* 230 */
    { 0x1.0cdd9aa677344p-1, 0x1.49c928b0a62bep-1 },  /* 231 */
    { 0x1.0c50b446391f3p-1, 0x1.4ad5bfcbcad23p-1 },  /* 232 */
    { 0x1.0bc4614657569p-1, 0x1.4be1ca4a52b78p-1 },  /* 233 */
    { 0x1.0b38a0c010b39p-1, 0x1.4ced48bf2aaf4p-1 },  /* 234 */
    { 0x1.0aad71ce84d16p-1, 0x1.4df83bbc59bc8p-1 },  /* 235 */
    { 0x1.0a22d38eaf2bfp-1, 0x1.4f02a3d302f06p-1 },  /* 236 */
    { 0x1.0998c51f624d5p-1, 0x1.500c819367434p-1 },  /* 237 */
    { 0x1.090f45a1430aap-1, 0x1.5115d58ce769cp-1 },  /* 238 */
    { 0x1.08865436c3cf7p-1, 0x1.521ea04e05a45p-1 },  /* 239 */
    { 0x1.07fdf0041ff7cp-1, 0x1.5326e264678adp-1 },  /* 240 */
    { 0x1.0776182f57386p-1, 0x1.542e9c5cd7d2fp-1 },  /* 241 */
    { 0x1.06eecbe029155p-1, 0x1.5535cec348128p-1 },  /* 242 */
    { 0x1.06680a4010668p-1, 0x1.563c7a22d27ccp-1 },  /* 243 */
    { 0x1.05e1d27a3ee9cp-1, 0x1.57429f05bb9b9p-1 },  /* 244 */
    { 0x1.055c23bb98e2ap-1, 0x1.58483df574044p-1 },  /* 245 */
    { 0x1.04d6fd32b0c7bp-1, 0x1.594d577a9a07ep-1 },  /* 246 */
    { 0x1.04525e0fc2fcbp-1, 0x1.5a51ec1cfb5f4p-1 },  /* 247 */
    { 0x1.03ce4584b19a0p-1, 0x1.5b55fc6396d2bp-1 },  /* 248 */
    { 0x1.034ab2c50040dp-1, 0x1.5c5988d49dddep-1 },  /* 249 */
    { 0x1.02c7a505cffbfp-1, 0x1.5d5c91f5764f0p-1 },  /* 250 */
    { 0x1.02451b7ddb2d2p-1, 0x1.5e5f184abbe28p-1 },  /* 251 */
    { 0x1.01c315657186bp-1, 0x1.5f611c5841d9fp-1 },  /* 252 */
    { 0x1.014191f674111p-1, 0x1.60629ea1148fdp-1 },  /* 253 */
    { 0x1.00c0906c513cfp-1, 0x1.61639fa77b069p-1 },  /* 254 */
    { 0x1.0040100401004p-1, 0x1.62641fecf8743p-1 },  /* 255 */
};

double rng_unit_ln(uint32_t u) {
    static const double ln2 = 0x1.62e42fefa39efp-1;
    uint64_t v = 2u * (uint64_t)u + 1u;             /* odd, 1 <= v < 2^33 */
    int e = 63 - __builtin_clzll(v);                 /* 2^e <= v < 2^(e+1) */
    /* m = v / 2^e in [1, 2), built from its bits: exact, no division. */
    uint64_t frac = (v << (52 - e)) & ((1ull << 52) - 1);
    uint64_t bits = (1023ull << 52) | frac;
    double m;
    memcpy(&m, &bits, sizeof m);
    const double *cell = ln_cells[frac >> 44];      /* top 8 fraction bits */
    double c = 1.0 + (double)(2 * (frac >> 44) + 1) * (1.0 / 512.0);   /* exact */
    /* ln(m) = ln(c) + ln(1 + r), r = (m - c) / c, |r| < 1/512: four terms
     * of the series leave an error below 1e-14. m - c is exact. */
    double r = (m - c) * cell[0];
    double p = r * (1.0 / 3.0 - r * 0.25);
    p = r * (p - 0.5);
    double ln1p = r + r * p;
    double result = cell[1] + ln1p + (double)(e - 33) * ln2;
    SIM_ASSERT(result < 0.0);
    return result;
}

sim_time_ns rng_exp_ns(uint32_t u, sim_time_ns mean_ns) {
    SIM_ASSERT(mean_ns <= (1ull << 48));
    double x = -rng_unit_ln(u) * (double)mean_ns;  /* <= 22.9 * mean */
    SIM_ASSERT(x >= 0.0 && x < 18446744073709551616.0);
    return (sim_time_ns)x;                         /* truncation: exact */
}
